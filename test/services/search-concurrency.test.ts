import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchService } from '../../src/services/search.js';
import { repoRoot } from '../support/corpus.js';
import { createSearchFixture, searchOptions, type SearchFixture } from './support/fixtures.js';

const REQUESTED = { registry: 'Verra', projectId: 5533 };
const INTRUDER = { registry: 'Verra', projectId: 4086 };

describe('search while another process ingests', () => {
  let dir: string;
  let fx: SearchFixture;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'search-concurrency-'));
    fx = await createSearchFixture(dir);
    await fx.addRecord(REQUESTED);
    await fx.addRecord(INTRUDER);
    await fx.addDocument(REQUESTED, 'pd', ['The project crediting period starts on 15/07/2022.', 'Trees are planted in Purulia district.']);
    await fx.addDocument(INTRUDER, 'old', ['The crediting period of the project is 20 years from 15/07/2022 to 14/07/2042.']);
  });
  afterAll(async () => {
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never cites a chunk of an unrequested project while its chunks are being written and deleted', async () => {
    const search = createSearchService(searchOptions(fx, { records: fx.records }));
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'test/services/support/chunk-writer.ts'),
        dir,
        INTRUDER.registry,
        String(INTRUDER.projectId),
        '40',
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let rounds = 0;
    let stderr = '';
    writer.stdout.on(
      'data',
      (d: Buffer) =>
        (rounds += d
          .toString()
          .split('\n')
          .filter((l) => l.startsWith('round')).length),
    );
    writer.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));

    let searches = 0;
    let searchesDuringWrites = 0;
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      // Searches that run after the writer's first round and before its last one overlap its writes.
      if (rounds > 0 && rounds < 40) searchesDuringWrites++;
      for (const mode of ['hybrid', 'text', 'vector'] as const) {
        const res = await search.search({
          projects: [{ ref: REQUESTED, requestedRegistry: 'Verra' }],
          query: 'crediting period 15/07/2022',
          mode,
          topK: 50,
        });
        searches++;
        expect(res.citations.length).toBeGreaterThan(0);
        for (const c of res.citations) expect(c.projectId).toBe(REQUESTED.projectId);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await exited, stderr).toBe(0);
    expect(rounds).toBe(40);
    // The writes really overlapped the searches, and the intruder's chunks really are in the index.
    expect(searchesDuringWrites).toBeGreaterThan(0);
    expect(searches).toBeGreaterThan(3);
    const intruderChunks = await fx.index.countChunks([INTRUDER]);
    expect(intruderChunks.get('Verra:4086')).toBeGreaterThan(50);
  }, 60_000);
});
