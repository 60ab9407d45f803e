import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDownloader, buildIngestDeps, buildPdfExtractor, type BuiltIngestDeps } from '../../ingest/deps.js';
import { runIngest } from '../../ingest/pipeline.js';
import { loadConfig } from '../../src/config.js';
import { extractMarkers } from '../../src/domain/markers.js';
import { createLogger } from '../../src/logger.js';
import { startSearchServer, type SearchServer } from '../../bench/eval/harness.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';

/**
 * The whole path on real PDFs of the shared corpus: records -> ingest (download from a local server, extract, chunk,
 * embed with the default USE embedder, index) -> the real API over HTTP -> cited answers on known pages
 * (questions and pages from ../shared/corpus/qa-dev.jsonl: dev-022 and dev-026). Small documents keep it quick.
 */

interface Citation {
  id: number;
  projectId: number;
  registry: string;
  documentTitle: string;
  page: number;
  text: string;
  score: number;
}
interface SearchBody {
  answer: string;
  citations: Citation[];
  answerModel: string;
  projects: { projectId: number; registry: string; indexedDocuments: number }[];
}

const FORM = 'CDM_GFL-HFC23_registration_request_form.pdf';
const VM0001 = 'methodology_VM0001.pdf';
const REPORT = 'CDM_GFL-HFC23_validation_report.pdf';

function record(id: number, files: { name: string; type: string }[], base: string) {
  return {
    registry: 'Verra',
    resourceIdentifier: String(id),
    resourceName: `E2E project ${id}`,
    description: 'end-to-end search test project',
    attributes: [],
    participationSummaries: [],
    documentGroups: [
      {
        code: 'VCS_OTHER_DOCUMENTS',
        description: 'VCS Other Documents',
        documents: files.map((f) => ({
          documentName: f.name,
          documentType: f.type,
          uploadDate: '2025-01-01T00:00:00.000Z',
          uri: `${base}/pdf/${f.name}`,
        })),
      },
    ],
    childResources: [],
  };
}

describeWithService(
  'batch search end to end on corpus PDFs',
  { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` },
  () => {
    let dataDir: string;
    let files: StaticServer;
    let deps: BuiltIngestDeps;
    let api: SearchServer;
    const logger = createLogger({ level: 'silent', name: 'e2e-search' });

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-search-'));
      files = await startStaticServer({ root: corpusPath('pdf'), mount: '/pdf' });
      const config = loadConfig({
        DATA_DIR: dataDir,
        DEMO_DATA: 'false',
        EMBEDDER: 'use',
        DOWNLOAD_ALLOW_HOSTS: files.hostPort,
        LOG_LEVEL: 'silent',
      });
      deps = await buildIngestDeps(config, logger);
      await deps.records.upsert([
        {
          ref: { registry: 'Verra', projectId: 990001 },
          format: 'registry-json',
          raw: record(
            990001,
            [
              { name: FORM, type: 'Registration Representation' },
              { name: VM0001, type: 'Other' },
            ],
            files.baseUrl,
          ),
        },
        {
          ref: { registry: 'Verra', projectId: 990002 },
          format: 'registry-json',
          raw: record(990002, [{ name: REPORT, type: 'Validation Report' }], files.baseUrl),
        },
      ]);
      const extractor = buildPdfExtractor(config);
      const summary = await runIngest({
        deps,
        projects: [
          { registry: 'Verra', projectId: 990001 },
          { registry: 'Verra', projectId: 990002 },
        ],
        logger,
        downloader: buildDownloader(config),
        extractor,
      }).finally(() => extractor.close());
      expect(summary.failures).toEqual([]);
      expect(summary.documents.indexed).toBe(3);
      api = await startSearchServer(config, deps, logger);
    }, 120_000);

    afterAll(async () => {
      await api?.close();
      await deps?.close();
      await files?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    async function ask(body: unknown): Promise<SearchBody> {
      const res = await fetch(`${api.baseUrl}/projects-documents/batch-search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as SearchBody;
    }

    it('finds the page that answers a keyword question and cites it in the answer (dev-022)', async () => {
      const r = await ask({
        projectList: [{ project_id: 990001, registry: 'VCS' }],
        query: 'What validation opinion number did SGS give in the F-CDM-REG registration request for the GFL HFC-23 project?',
        topK: 5,
      });
      expect(r.projects).toEqual([{ projectId: 990001, registry: 'VCS', indexedDocuments: 2 }]);
      const hit = r.citations.find((c) => c.documentTitle === FORM && c.page === 10);
      expect(hit, JSON.stringify(r.citations.map((c) => [c.documentTitle, c.page]))).toBeDefined();
      expect(hit?.text).toContain('102154/01/05');
      expect(r.answerModel).toBe('extractive');
      const markers = extractMarkers(r.answer);
      expect(markers.length).toBeGreaterThan(0);
      for (const m of markers) expect(r.citations.map((c) => c.id)).toContain(m);
      // Only the requested project's documents are cited, though the other project's report shares much text.
      for (const c of r.citations) expect(c.projectId).toBe(990001);
    });

    it('finds the page of a methodology applicability condition (dev-026) in every mode', async () => {
      for (const mode of ['hybrid', 'text', 'vector'] as const) {
        const r = await ask({
          list: [
            { id: 990001, registry: 'Verra' },
            { id: 990002, registry: 'Verra' },
          ],
          query: 'Under VM0001, what is the maximum refrigerant charge of refrigeration systems that can be included?',
          topK: 10,
          mode,
        });
        const rank = r.citations.findIndex((c) => c.documentTitle === VM0001 && c.page === 3);
        expect(rank, `${mode}: ${JSON.stringify(r.citations.map((c) => [c.documentTitle, c.page]))}`).toBeGreaterThanOrEqual(0);
        if (mode === 'hybrid') expect(rank).toBeLessThan(5);
      }
    });

    it('reports a requested project with nothing indexed beside the ones searched', async () => {
      const r = await ask({
        projectList: [
          { project_id: 990002, registry: 'Verra' },
          { project_id: 4242, registry: 'Verra' },
        ],
        query: 'clarification requests raised during validation',
      });
      expect(r.projects).toEqual([
        { projectId: 990002, registry: 'Verra', indexedDocuments: 1 },
        { projectId: 4242, registry: 'Verra', indexedDocuments: 0 },
      ]);
      expect(r.citations.length).toBeGreaterThan(0);
      for (const c of r.citations) expect(c.documentTitle).toBe(REPORT);
      expect(r.answer).toMatch(/No documents are indexed for Verra 4242\./);
    });
  },
);
