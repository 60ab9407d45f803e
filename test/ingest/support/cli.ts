import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../support/corpus.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real worker CLI (`ingest/main.ts` under tsx) as a child process. Started with node directly, not npx,
 * so that a kill reaches the worker itself.
 */
/**
 * The test runner's environment without anything the worker reads (CI exports DATABASE_URL, MODELS_DIR, ...): a
 * child gets the embedded default unless the test names its stores.
 */
function baseEnv(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS']) if (process.env[k] !== undefined) base[k] = process.env[k];
  return base;
}

export function startCli(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'ingest/main.ts'), ...args], {
    cwd: repoRoot,
    env: { ...baseEnv(), LOG_LEVEL: 'info', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return startCli(args, env).done;
}
