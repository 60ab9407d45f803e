import type { ChildProcess } from 'node:child_process';

/**
 * Ends a child process and resolves once it has exited (at once if it already has): the model workers end theirs
 * with SIGTERM, the PDF extraction (ingest/stages/extract.ts) with SIGKILL, since pdf.js may be deep in a page that
 * never yields.
 */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
