import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/corpus.js';
import { errorOf, testAppsClosedAfterEach } from '../fixture.js';

const app = testAppsClosedAfterEach();

describe('demo documents', () => {
  const demoDocs = path.join(repoRoot, 'demo', 'documents');

  it('serves a demo PDF read-only, and nothing outside the folder', async () => {
    const t = await app({}, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    const name = 'PD_900001_rio_verde_agroforestry.pdf';
    const res = await t.app.request(`/demo/documents/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(readFileSync(path.join(demoDocs, name)))).toBe(true);
    for (const p of [
      '/demo/documents/..%2F..%2Fpackage.json',
      '/demo/documents/..%2f..%2fsrc%2fmain.ts',
      '/demo/documents/%2e%2e%2f%2e%2e%2fREADME.pdf',
      '/demo/documents/.hidden.pdf',
      '/demo/documents/missing.pdf',
      '/demo/documents/..',
    ]) {
      const r = await t.app.request(p);
      expect(r.status, p).toBe(404);
    }
    expect((await t.app.request(`/demo/documents/${name}`, { method: 'DELETE' })).status).toBe(405);
  });

  it('wants a key for the demo documents when API_KEYS is set (issue 16.9)', async () => {
    const t = await app({ API_KEYS: 'k' }, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    expect((await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf')).status).toBe(401);
    const keyed = await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf', { headers: { 'X-API-Key': 'k' } });
    expect(keyed.status).toBe(200);
  });

  it('404 for a name too long for the file system, naming it cut to 200 characters (issue 16.9)', async () => {
    const t = await app({}, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    const res = await t.app.request(`/demo/documents/${'a'.repeat(300)}.pdf`);
    expect(res.status).toBe(404);
    const err = await errorOf(res);
    expect(err.code).toBe('not_found');
    expect(err.message.length).toBeLessThan(300);
  });

  it('is not served when no demo folder is configured', async () => {
    const t = await app();
    expect((await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf')).status).toBe(404);
  });
});
