import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSearchServer, type SearchServer } from '../../bench/eval/harness.js';
import { buildDownloader, buildIngestDeps, buildPdfExtractor, type BuiltIngestDeps } from '../../ingest/deps.js';
import { runIngest } from '../../ingest/pipeline.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { imageOnlyCopy } from '../support/scanned-pdf.js';
import { describeWithService } from '../support/services.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';

/**
 * A scanned document through the whole path: three pages of a real corpus PDF, once with their text layer and once
 * as an image-only copy (150 dpi, turned by 1 degree), each the only document of its project; both ingested with
 * the default configuration (OCR on), then asked the same development questions over HTTP. The copy must be
 * answered on the same page as the original, its citations saying they were read by OCR.
 */

const SOURCE = 'VCS5533_project_description.pdf';
/** Pages of the source copied, in order: 25 answers dev-032, 47 answers dev-006, 24 is a neighbour. */
const PAGES = [24, 25, 47];
const QUESTIONS = [
  { id: 'dev-032', page: 25, query: 'Why was the stakeholder consultation meeting for the Purulia tree-planting project held on 5 June?' },
  {
    id: 'dev-006',
    page: 47,
    query:
      'How risky is the West Bengal plantation judged to be in terms of carbon reversal, i.e. what percentage was assigned for the buffer calculation?',
  },
];
const TYPED = { registry: 'Verra', projectId: 990201 };
const SCANNED = { registry: 'Verra', projectId: 990202 };

interface Citation {
  projectId: number;
  documentTitle: string;
  uri: string;
  page: number;
  text: string;
  quote: string;
  ocr?: boolean;
}

function record(id: number, name: string, base: string) {
  return {
    registry: 'Verra',
    resourceIdentifier: String(id),
    resourceName: `OCR project ${id}`,
    description: 'scanned document test project',
    attributes: [],
    participationSummaries: [],
    documentGroups: [
      {
        code: 'VCS_OTHER_DOCUMENTS',
        description: 'VCS Other Documents',
        documents: [
          { documentName: name, documentType: 'Project Description', uploadDate: '2025-01-01T00:00:00.000Z', uri: `${base}/pdf/${name}` },
        ],
      },
    ],
    childResources: [],
  };
}

describeWithService(
  'search on a scanned copy of a corpus PDF',
  { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` },
  () => {
    let dir: string;
    let files: StaticServer;
    let deps: BuiltIngestDeps;
    let api: SearchServer;
    const logger = createLogger({ level: 'silent', name: 'e2e-ocr' });

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'e2e-ocr-'));
      const source = new Uint8Array(readFileSync(corpusPath('pdf', SOURCE)));
      writeFileSync(path.join(dir, 'typed.pdf'), await imageOnlyCopy(source, { pages: PAGES, keepText: [1, 2, 3] }));
      writeFileSync(path.join(dir, 'scanned.pdf'), await imageOnlyCopy(source, { pages: PAGES, dpi: 150, skewDegrees: 1 }));
      files = await startStaticServer({ root: dir, mount: '/pdf' });
      const config = loadConfig({
        DATA_DIR: dir,
        DEMO_DATA: 'false',
        EMBEDDER: 'use',
        DOWNLOAD_ALLOW_HOSTS: files.hostPort,
        LOG_LEVEL: 'silent',
      });
      deps = await buildIngestDeps(config, logger);
      await deps.records.upsert([
        { ref: TYPED, format: 'registry-json', raw: record(TYPED.projectId, 'typed.pdf', files.baseUrl) },
        { ref: SCANNED, format: 'registry-json', raw: record(SCANNED.projectId, 'scanned.pdf', files.baseUrl) },
      ]);
      const extractor = buildPdfExtractor(config);
      const summary = await runIngest({
        deps,
        projects: [TYPED, SCANNED],
        logger,
        downloader: buildDownloader(config),
        extractor,
      }).finally(() => extractor.close());
      expect(summary.failures).toEqual([]);
      expect(summary.documents.indexed).toBe(2);
      expect(summary.ocrPages).toBe(3);
      api = await startSearchServer(config, deps, logger);
    }, 600_000);

    afterAll(async () => {
      await api?.close();
      await deps?.close();
      await files?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function ask(ref: { registry: string; projectId: number }, query: string): Promise<Citation[]> {
      const res = await fetch(`${api.baseUrl}/projects-documents/batch-search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectList: [{ project_id: ref.projectId, registry: ref.registry }], query, topK: 5 }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { citations: Citation[] }).citations;
    }

    it('records how many pages of each document were read by OCR', async () => {
      expect((await deps.states.list({ projects: [SCANNED] })).map((s) => [s.status, s.pages, s.ocrPages])).toEqual([['indexed', 3, 3]]);
      const typed = await deps.states.list({ projects: [TYPED] });
      expect(typed.map((s) => [s.status, s.pages, s.ocrPages])).toEqual([['indexed', 3, undefined]]);
    });

    it('answers a development question on the scanned copy at the page the original answers it, saying OCR read it', async () => {
      for (const q of QUESTIONS) {
        const gold = PAGES.indexOf(q.page) + 1;
        const typed = await ask(TYPED, q.query);
        const scanned = await ask(SCANNED, q.query);
        const pagesOf = (cs: Citation[]) => JSON.stringify(cs.map((c) => c.page));
        // Where the original is answered, the copy is answered: the gold page among the first five, and the same
        // page first.
        expect(
          typed.map((c) => c.page),
          `${q.id} original: ${pagesOf(typed)}`,
        ).toContain(gold);
        expect(
          scanned.map((c) => c.page),
          `${q.id} scanned: ${pagesOf(scanned)}`,
        ).toContain(gold);
        expect(scanned[0]?.page, `${q.id}: ${pagesOf(typed)} vs ${pagesOf(scanned)}`).toBe(typed[0]?.page);
        for (const c of typed) expect(c.ocr).toBeUndefined();
        for (const c of scanned) {
          expect(c.ocr).toBe(true);
          expect(c.text).toContain(c.quote);
          expect(c.uri).toBe(`${files.baseUrl}/pdf/scanned.pdf`);
        }
      }
    });
  },
);
