import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSearchServer, type SearchServer } from '../../bench/eval/harness.js';
import { buildDownloader, buildIngestDeps, buildPdfExtractor, type BuiltIngestDeps } from '../../ingest/deps.js';
import { runIngest } from '../../ingest/pipeline.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';

/**
 * A table row through the whole path: the Botany Farm 2023 monitoring report (a real corpus PDF) ingested with the
 * default configuration, then asked over HTTP about one row of its SOC results table (page 7). The answer's quote
 * must be that row read with its caption and column headings, and stay a verbatim part of its citation's text.
 */

const FILE = 'REGEN_C06-006_botany_farm_monitoring_report_2023.pdf';
const REF = { registry: 'Verra', projectId: 990301 };

interface Citation {
  page: number;
  text: string;
  quote: string;
}

describeWithService('a question about a table row', { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` }, () => {
  let dir: string;
  let files: StaticServer;
  let deps: BuiltIngestDeps;
  let api: SearchServer;
  const logger = createLogger({ level: 'silent', name: 'e2e-table-rows' });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'e2e-table-rows-'));
    copyFileSync(corpusPath('pdf', FILE), path.join(dir, 'report.pdf'));
    files = await startStaticServer({ root: dir, mount: '/pdf' });
    const config = loadConfig({
      DATA_DIR: dir,
      DEMO_DATA: 'false',
      EMBEDDER: 'use',
      DOWNLOAD_ALLOW_HOSTS: files.hostPort,
      LOG_LEVEL: 'silent',
    });
    deps = await buildIngestDeps(config, logger);
    const raw = {
      registry: 'Verra',
      resourceIdentifier: String(REF.projectId),
      resourceName: 'Table rows project',
      description: 'table rows test project',
      attributes: [],
      participationSummaries: [],
      documentGroups: [
        {
          code: 'VCS_OTHER_DOCUMENTS',
          description: 'VCS Other Documents',
          documents: [
            {
              documentName: 'report.pdf',
              documentType: 'Monitoring Report',
              uploadDate: '2025-01-01T00:00:00.000Z',
              uri: `${files.baseUrl}/pdf/report.pdf`,
            },
          ],
        },
      ],
      childResources: [],
    };
    await deps.records.upsert([{ ref: REF, format: 'registry-json', raw }]);
    const extractor = buildPdfExtractor(config);
    const summary = await runIngest({ deps, projects: [REF], logger, downloader: buildDownloader(config), extractor }).finally(() =>
      extractor.close(),
    );
    expect(summary.failures).toEqual([]);
    expect(summary.documents.indexed).toBe(1);
    api = await startSearchServer(config, deps, logger);
  }, 600_000);

  afterAll(async () => {
    await api?.close();
    await deps?.close();
    await files?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('quotes the row with its caption and column headings, verbatim from the cited text', async () => {
    const res = await fetch(`${api.baseUrl}/projects-documents/batch-search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        projectList: [{ project_id: REF.projectId, registry: REF.registry }],
        query: 'What net total SOC stock in tonnes did Field 26 Acre hold in the 2023 soil carbon results?',
        topK: 5,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answered: boolean; answer: string; citations: Citation[] };
    const row = body.citations.find((c) => c.quote?.includes('Field 26 Acre'));
    expect(row, JSON.stringify(body.citations.map((c) => [c.page, c.quote]))).toBeDefined();
    expect(row?.page).toBe(7);
    expect(row?.quote).toContain('Table 1 (SOC Results), Field 26 Acre: Crop Type Winter Wheat,');
    expect(row?.quote).toContain('Net Total [t] 780.92');
    expect(row?.text).toContain(row?.quote);
    expect(body.answered).toBe(true);
    expect(body.answer).toContain('Net Total [t] 780.92');
  });
});
