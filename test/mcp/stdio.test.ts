import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

/** A process that takes stdout, then writes through the returned stream and through console.log. */
const SCRIPT = `
import { takeStdoutForProtocol } from ${JSON.stringify(path.join(repoRoot, 'src/mcp/stdio.ts'))};
const protocol = takeStdoutForProtocol();
console.log('a stray banner');
protocol.write('{"jsonrpc":"2.0"}\\n');
process.stdout.write('another stray line\\n');
`;

describe('takeStdoutForProtocol', () => {
  it('leaves stdout to the protocol stream and sends every other write to stderr', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toBe('{"jsonrpc":"2.0"}\n');
    expect(stderr).toContain('a stray banner');
    expect(stderr).toContain('another stray line');
  });
});
