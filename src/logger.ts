import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`: the worker's goes through its progress bar on a terminal); one
 * logger per process, children carry request ids and stages.
 */
export function createLogger(opts: { level: string; name: string; destination?: DestinationStream }): Logger {
  const options = { name: opts.name, level: opts.level, base: { pid: process.pid } };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
