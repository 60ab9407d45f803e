import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

function lines(): { destination: Writable; written: Record<string, unknown>[] } {
  const written: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') written.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { destination, written };
}

describe('createLogger', () => {
  it('writes one JSON line per entry with the name, the pid and what children carry, from the level up', () => {
    const { destination, written } = lines();
    const log = createLogger({ level: 'info', name: 'api', destination });
    log.debug('hidden');
    log.child({ requestId: 'r1' }).info({ status: 200 }, 'request');
    expect(written).toEqual([
      expect.objectContaining({ level: 30, name: 'api', pid: process.pid, requestId: 'r1', status: 200, msg: 'request' }),
    ]);
  });

  it('is silent at level silent', () => {
    const { destination, written } = lines();
    createLogger({ level: 'silent', name: 'x', destination }).error('nothing');
    expect(written).toEqual([]);
  });
});
