import { z } from '@hono/zod-openapi';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DependencyError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { callTool, defineTool, describeTool, jsonSchemaOf } from '../../src/mcp/tool.js';

/** A logger whose lines the test reads. */
function capturingLogger(): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', name: 'tool-test', destination }) };
}

const signal = new AbortController().signal;

function toolThatFails(err: unknown) {
  return defineTool({
    name: 'fails',
    title: 'Fails',
    description: 'Fails as told.',
    input: z.object({ n: z.number({ error: 'must be a number' }) }),
    output: z.object({ ok: z.boolean() }),
    run: () => Promise.reject(err),
  });
}

describe('callTool', () => {
  it('turns an unexpected failure into an error result that names no internals, and logs it', async () => {
    const { lines, logger } = capturingLogger();
    const result = await callTool(toolThatFails(new Error('secret path /var/x')), { n: 1 }, { signal }, logger);
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'internal: internal error in tool fails; the server logged it' }],
    });
    expect(lines).toEqual([expect.objectContaining({ level: 50, tool: 'fails', msg: 'MCP tool failed unexpectedly' })]);
  });

  it('says which store is down, as the HTTP API does', async () => {
    const { logger } = capturingLogger();
    const result = await callTool(
      toolThatFails(new DependencyError('vector index', 'connection refused', { retryable: true })),
      { n: 1 },
      { signal },
      logger,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'unavailable: vector index is unavailable; try again later' }]);
  });

  it('validates arguments before running, missing arguments included', async () => {
    const { logger } = capturingLogger();
    const result = await callTool(toolThatFails(new Error('never run')), undefined, { signal }, logger);
    expect(result.content).toEqual([{ type: 'text', text: 'invalid_request: n: must be a number' }]);
  });
});

describe('tool schemas', () => {
  it('are draft-7 JSON Schema objects, open to fields added later', () => {
    const described = describeTool(toolThatFails(new Error('x')));
    expect(described.inputSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    expect(described.outputSchema).not.toHaveProperty('additionalProperties');
    expect(described.annotations?.readOnlyHint).toBe(true);
  });

  it('must describe an object', () => {
    expect(() => jsonSchemaOf(z.string())).toThrow(/must describe an object/);
  });
});
