import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtractCaps } from '../../../ingest/stages/extract-pdf.js';
import type { ExtractRequest, ExtractResponse } from '../../../ingest/stages/extract-worker.js';
import { makePdf } from '../support/make-pdf.js';

/**
 * The extraction child process spoken to directly over its IPC channel, started as extract.ts starts it (through
 * the embedders' worker-boot.mjs): ready once pdf.js is loaded, then one result per request, by id.
 */
const boot = new URL('../../../src/adapters/embedders/worker-boot.mjs', import.meta.url);
const entry = new URL('../../../ingest/stages/extract-worker.ts', import.meta.url).href;
const CAPS: ExtractCaps = { maxPages: 10, maxTextChars: 100_000, maxPageChars: 10_000, ocr: null };

let child: ChildProcess;
const inbox: ExtractResponse[] = [];
const waiters: Array<() => void> = [];

async function next(): Promise<ExtractResponse> {
  while (inbox.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
  return inbox.shift() as ExtractResponse;
}

beforeAll(() => {
  child = fork(fileURLToPath(boot), [JSON.stringify({ entry })], {
    serialization: 'advanced',
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  child.on('message', (m) => {
    inbox.push(m as ExtractResponse);
    waiters.splice(0).forEach((w) => w());
  });
});
afterAll(async () => {
  if (child.exitCode === null) {
    const exited = once(child, 'exit');
    child.disconnect();
    await exited;
  }
});

describe('the extraction worker', () => {
  it('says ready, then answers each request with its id, a failure as a result rather than a crash', async () => {
    expect(await next()).toEqual({ type: 'ready' });
    const send = (req: ExtractRequest) => child.send(req);
    send({ id: 7, bytes: makePdf(['The crediting period is ten years, from 2018 to 2028.']), caps: CAPS });
    send({ id: 8, bytes: new TextEncoder().encode('not a pdf'), caps: CAPS });
    send({ id: 9, bytes: makePdf(['One page.', 'Two pages.']), caps: { ...CAPS, maxPages: 1 } });
    const answers = [await next(), await next(), await next()];
    const byId = new Map(answers.map((a) => [a.type === 'result' ? a.id : -1, a]));
    expect(byId.get(7)).toEqual({
      type: 'result',
      id: 7,
      result: { ok: true, pages: ['The crediting period is ten years, from 2018 to 2028.'], ocrPages: [] },
    });
    expect(byId.get(8)).toMatchObject({
      type: 'result',
      result: { ok: false, kind: 'failed', reason: expect.stringMatching(/^PDF could not be parsed/) },
    });
    expect(byId.get(9)).toMatchObject({ result: { ok: false, reason: expect.stringMatching(/more than the limit of 1/) } });
  }, 60_000);

  it('exits when its parent goes away', async () => {
    const exited = once(child, 'exit');
    child.disconnect();
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
