/**
 * PDF extraction alone, as the extract stage runs it (ingest/stages/extract.ts: pdf.js in a pool of child
 * processes under the EXTRACT_* limits): the corpus PDFs one after another through one extractor, the first
 * document including the process's start (tsx and pdf.js loading), then the same documents again on the warm process.
 *
 *   npx tsx bench/ingest/extract.ts [--rounds 2]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { corpusPath } from '../../test/support/corpus.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '2' } } });
const rounds = Number(values.rounds);
const files = readdirSync(corpusPath('pdf'))
  .filter((f) => f.endsWith('.pdf'))
  .sort();
const pdfs = files.map((f) => ({ name: f, bytes: readFileSync(corpusPath('pdf', f)) }));
const extractor = createPdfExtractor();
try {
  for (let r = 1; r <= rounds; r++) {
    let pages = 0;
    let first = 0;
    const started = performance.now();
    for (const [i, pdf] of pdfs.entries()) {
      const t = performance.now();
      const res = await extractor.extract(pdf.bytes);
      if (!res.ok) throw new Error(`${pdf.name}: ${res.reason}`);
      pages += res.pages.length;
      if (i === 0) first = performance.now() - t;
    }
    const total = performance.now() - started;
    process.stdout.write(
      `round ${r}: ${pdfs.length} PDFs, ${pages} pages in ${(total / 1000).toFixed(2)} s ` +
        `(${((pages * 1000) / total).toFixed(1)} pages/s; first document ${Math.round(first)} ms)\n`,
    );
  }
} finally {
  await extractor.close();
}
