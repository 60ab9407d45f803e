import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import { z } from '@hono/zod-openapi';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError, DependencyError } from '../errors.js';
import { validationError } from '../http/validation-error.js';
import type { Logger } from '../logger.js';

/**
 * One MCP tool: its name and description (what assistants choose tools by), its arguments as the zod schema the HTTP
 * route validates with, and what it returns: `structured` (the tool's `structuredContent`, described by
 * `outputSchema`) and `text` (the short readable item an assistant reads first).
 */
export interface McpTool<Input extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: z.ZodType;
  run(args: z.output<Input>, context: ToolContext): Promise<ToolOutput>;
}

export interface ToolContext {
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
}

export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

/** Keeps the tool's own input type while listing tools of different inputs together. */
export function defineTool<Input extends z.ZodType>(tool: McpTool<Input>): McpTool {
  return tool as unknown as McpTool;
}

/**
 * A zod schema as the JSON Schema tools/list publishes, with the fields' descriptions. Draft 7, which clients' validators (Ajv's default among
 * them) read; the input side of each schema for both arguments and results, because the output side closes every
 * object (`additionalProperties: false`) and a result carrying a field added later (an additive contract change)
 * would then fail a client's check.
 */
export function jsonSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
    // The routes document their fields for the OpenAPI document (`.openapi({description})`); the same words tell an
    // assistant what each argument means.
    override: (ctx) => {
      if (!(ctx.zodSchema instanceof z.ZodType)) return;
      const description = getOpenApiMetadata(ctx.zodSchema).description;
      if (typeof description === 'string' && ctx.jsonSchema.description === undefined) ctx.jsonSchema.description = description;
    },
  });
  const { $schema: _ignored, ...rest } = json as Record<string, unknown>;
  if (rest.type !== 'object') throw new TypeError(`an MCP tool schema must describe an object (got ${JSON.stringify(rest.type)})`);
  return rest as Tool['inputSchema'];
}

/** The tool's entry in tools/list. */
export function describeTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input),
    outputSchema: jsonSchemaOf(tool.output),
    annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false },
  };
}

/** An error as a tool result: the code and message the HTTP API would answer with, so the assistant can correct it. */
export function errorResult(err: AppError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}` }] };
}

/**
 * Runs a tool on raw arguments: validated with its schema (a failure is the HTTP API's 400 message), then run; every
 * failure becomes an error result, so a bad call never ends the server. Unexpected failures are logged, and the
 * assistant is told only that one happened.
 */
export async function callTool(tool: McpTool, args: unknown, context: ToolContext, logger: Logger): Promise<CallToolResult> {
  try {
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) return errorResult(validationError(parsed.error));
    const out = await tool.run(parsed.data, context);
    return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured };
  } catch (err) {
    if (err instanceof AppError) return errorResult(err);
    if (err instanceof DependencyError) {
      logger.warn({ err, dependency: err.dependency, tool: tool.name }, 'dependency unavailable');
      return errorResult(new AppError('unavailable', `${err.dependency} is unavailable; try again later`));
    }
    logger.error({ err, tool: tool.name }, 'MCP tool failed unexpectedly');
    return errorResult(new AppError('internal', `internal error in tool ${tool.name}; the server logged it`));
  }
}
