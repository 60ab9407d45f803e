import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; one logger per process, children carry request ids and stages. */
export function createLogger(opts: { level: string; name: string }): Logger {
  return pino({ name: opts.name, level: opts.level, base: { pid: process.pid } });
}
