import { Writable } from 'node:stream';

/**
 * Over stdio, stdout carries the protocol and nothing else: one stray line (a library's banner, a worker thread's
 * console output, which Node forwards to the parent's stdout) breaks the client's reading. This takes stdout for
 * the protocol and sends every other write to it on to stderr, where the logs go too. Call it once, before anything
 * can print.
 */
export function takeStdoutForProtocol(): Writable {
  const stdout = process.stdout;
  const writeProtocol = stdout.write.bind(stdout);
  const toStderr = process.stderr.write.bind(process.stderr);
  stdout.write = toStderr as typeof stdout.write;
  return new Writable({
    write(chunk: Buffer | string, encoding: BufferEncoding, callback: (err?: Error | null) => void) {
      writeProtocol(chunk, encoding, callback);
    },
  });
}
