import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './corpus.js';

/**
 * Child processes of the service (API, worker, CLI) for multi-process tests: started with node and tsx's loader,
 * with a clean environment (nothing of the test runner's that the service reads), their JSON log lines collected.
 */

/** `node --import tsx <script>`, as the npm scripts run them: the child's pid is the service's own (a signal reaches it). */
const nodeArgs = (script: string, args: string[]): string[] => ['--import', 'tsx', script, ...args];

export interface LoggedProcess {
  child: ChildProcess;
  pid: number;
  /** Parsed JSON log lines from stdout so far. */
  logs: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line (past or future) that `match` accepts; rejects on exit or after `timeoutMs`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** The test runner's environment stripped of everything the service reads, plus `env`. */
export function serviceEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS']) if (process.env[k] !== undefined) base[k] = process.env[k];
  return { ...base, LOG_LEVEL: 'info', NODE_ENV: 'test', ...env };
}

export function startLogged(script: string, args: string[], env: Record<string, string>): LoggedProcess {
  const child = spawn(process.execPath, nodeArgs(script, args), { cwd: repoRoot, env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
    for (const w of waiters) w();
  });
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters) w();
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    pid: child.pid ?? -1,
    logs,
    stderr,
    exited,
    waitForLog(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const hit = logs.find(match);
          if (hit) {
            cleanup();
            resolve(hit);
          } else if (done) {
            cleanup();
            reject(new Error(`${script} exited before the expected log line: ${stderr.join('').slice(-2000)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${script}: no expected log line within ${timeoutMs} ms: ${stderr.join('').slice(-2000)}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs a script to completion. */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, nodeArgs(script, args), { cwd: repoRoot, env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}
