/**
 * OCR benchmark (issue 44): image-only copies of four real corpus PDFs (their first 50 pages, rendered at 150 dpi,
 * turned by 0.6-1.2 degrees as a sheet fed askew, no text layer) are ingested with the default configuration, and
 * timed; their text-layer originals (the same 50 pages) are ingested beside them. Then the development questions of
 * those PDFs whose gold page lies within the 50 pages (../shared/corpus/qa-dev.jsonl) are asked of each over HTTP:
 * how often is a gold page among the first five citations, on the originals and on the scanned copies?
 *
 *   npm run bench:ocr                    # prints the numbers; the copies are made in a temporary folder
 *   npm run bench:ocr -- --pages 10      # a quicker run on the first 10 pages of each PDF
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { buildDownloader, buildIngestDeps, buildPdfExtractor } from '../../ingest/deps.js';
import { runIngest } from '../../ingest/pipeline.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { corpusPath } from '../../test/support/corpus.js';
import { imageOnlyCopy } from '../../test/support/scanned-pdf.js';
import { startStaticServer } from '../../test/support/static-server.js';
import { arg, startSearchServer } from '../eval/harness.js';

const FILES = [
  'VCS5533_project_description.pdf',
  'methodology_VM0003.pdf',
  'CDM9199_colombia_forestry_validation_report.pdf',
  'CDM9199_colombia_forestry_monitoring_report_2016-2020.pdf',
];
const SKEW = [0.8, -1.2, 0.6, -0.9];
const PAGES = Number(arg('pages') ?? 50);
const DPI = 150;
const TOP = 5;

interface Question {
  id: string;
  question: string;
  file: string;
  pages: number[];
}

const dir = mkdtempSync(path.join(tmpdir(), 'bench-ocr-'));
const logger = createLogger({ level: 'warn', name: 'bench-ocr' });
try {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const pages = Array.from({ length: PAGES }, (_, i) => i + 1);
  let t = performance.now();
  for (const [i, file] of FILES.entries()) {
    const bytes = new Uint8Array(readFileSync(corpusPath('pdf', file)));
    writeFileSync(path.join(dir, `typed-${i}.pdf`), await imageOnlyCopy(bytes, { pages, keepText: pages }));
    writeFileSync(path.join(dir, `scanned-${i}.pdf`), await imageOnlyCopy(bytes, { pages, dpi: DPI, skewDegrees: SKEW[i] ?? 1 }));
  }
  console.log(`made ${FILES.length} x ${PAGES} pages of copies in ${((performance.now() - t) / 1000).toFixed(0)} s`);

  const files = await startStaticServer({ root: dir, mount: '/pdf' });
  // The default configuration, but for the data folder, the demo data and the download hosts.
  const config = loadConfig({ ...process.env, DATA_DIR: path.join(dir, 'data'), DEMO_DATA: 'false', DOWNLOAD_ALLOW_HOSTS: files.hostPort });
  const deps = await buildIngestDeps(config, logger);
  const ref = (kind: 'typed' | 'scanned', i: number) => ({ registry: 'Verra', projectId: (kind === 'typed' ? 991000 : 992000) + i });
  await deps.records.upsert(
    (['typed', 'scanned'] as const).flatMap((kind) =>
      FILES.map((file, i) => ({
        ref: ref(kind, i),
        format: 'registry-json' as const,
        raw: {
          registry: 'Verra',
          resourceIdentifier: String(ref(kind, i).projectId),
          resourceName: `${kind} ${file}`,
          description: '',
          attributes: [],
          participationSummaries: [],
          childResources: [],
          documentGroups: [
            {
              code: 'VCS_OTHER_DOCUMENTS',
              description: 'VCS Other Documents',
              documents: [
                {
                  documentName: file,
                  documentType: 'Other',
                  uploadDate: '2025-01-01T00:00:00.000Z',
                  uri: `${files.baseUrl}/pdf/${kind}-${i}.pdf`,
                },
              ],
            },
          ],
        },
      })),
    ),
  );
  const ingest = async (kind: 'typed' | 'scanned') => {
    t = performance.now();
    const extractor = buildPdfExtractor(config);
    const summary = await runIngest({
      deps,
      projects: FILES.map((_, i) => ref(kind, i)),
      logger,
      downloader: buildDownloader(config),
      extractor,
      sentenceVectors: config.SENTENCE_VECTORS,
    }).finally(() => extractor.close());
    const seconds = (performance.now() - t) / 1000;
    console.log(
      `${kind}: ${summary.documents.indexed}/${FILES.length} indexed, ${summary.pages} pages (${summary.ocrPages} by OCR), ` +
        `${summary.chunks} chunks in ${seconds.toFixed(0)} s (${((seconds * 1000) / Math.max(1, summary.pages)).toFixed(0)} ms a page)` +
        (summary.failures.length ? `; failed: ${summary.failures.map((f) => f.reason).join('; ')}` : ''),
    );
  };
  await ingest('typed');
  await ingest('scanned');
  console.log(
    `load average after ingest ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  const questions = readFileSync(corpusPath('qa-dev.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Question)
    .filter((q) => FILES.includes(q.file) && q.pages.some((p) => p <= PAGES));
  const api = await startSearchServer(config, deps, logger);
  const hits = { typed: 0, scanned: 0 };
  for (const q of questions) {
    const row: string[] = [q.id];
    for (const kind of ['typed', 'scanned'] as const) {
      const r = ref(kind, FILES.indexOf(q.file));
      const res = await fetch(`${api.baseUrl}/projects-documents/batch-search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectList: [{ project_id: r.projectId, registry: r.registry }], query: q.question, topK: TOP }),
      });
      const body = (await res.json()) as { citations: { page: number }[] };
      const hit = body.citations.some((c) => q.pages.includes(c.page));
      if (hit) hits[kind]++;
      row.push(`${kind} ${hit ? 'hit' : 'miss'} [${body.citations.map((c) => c.page).join(',')}]`);
    }
    console.log(`  ${row.join('  ')}  gold ${q.pages.join(',')}`);
  }
  const n = questions.length;
  console.log(
    `gold page in top ${TOP}: originals ${hits.typed}/${n} (${(hits.typed / n).toFixed(2)}), scanned copies ${hits.scanned}/${n} (${(hits.scanned / n).toFixed(2)})`,
  );
  console.log(`ratio scanned/originals: ${(hits.scanned / Math.max(1, hits.typed)).toFixed(2)} (target >= 0.7)`);
  await api.close();
  await deps.close();
  await files.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
