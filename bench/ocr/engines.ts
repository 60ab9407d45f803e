/**
 * The two OCR candidates of issue 44 on the same scanned pages: the default (pdf.js renders the page, tesseract.js
 * reads it, all from npm) and Debian's tools run as processes (poppler's pdftoppm renders, the tesseract command
 * reads; `apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils`, which the service does not need). Pages
 * are image-only copies (150 dpi, turned by 1 degree) of three pages of each of four corpus PDFs; word recall is
 * against the original's text layer, every line kept (no confidence threshold), one page at a time on one thread.
 *
 *   npx tsx bench/ocr/engines.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { PDFParse } from 'pdf-parse';
import { createTesseractOcr } from '../../ingest/stages/ocr.js';
import { corpusPath } from '../../test/support/corpus.js';
import { imageOnlyCopy, wordRecall } from '../../test/support/scanned-pdf.js';

const SETS: [string, number[]][] = [
  ['VCS5533_project_description.pdf', [2, 4, 20]],
  ['methodology_VM0003.pdf', [3, 6, 30]],
  ['CDM9199_colombia_forestry_validation_report.pdf', [2, 5, 19]],
  ['CDM9199_colombia_forestry_monitoring_report_2016-2020.pdf', [1, 12, 20]],
];
const DPI = 150;

const hasCli = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const dir = mkdtempSync(path.join(tmpdir(), 'bench-ocr-engines-'));
const engine = createTesseractOcr({ minConfidence: 0 });
const totals = { js: { s: 0, r: 0 }, cli: { s: 0, r: 0 }, n: 0 };
try {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`page                              tesseract.js (s, recall)   tesseract CLI (s, recall)`);
  for (const [file, pages] of SETS) {
    const bytes = new Uint8Array(readFileSync(corpusPath('pdf', file)));
    const layer = new PDFParse({ data: bytes.slice(), verbosity: 0 });
    const copy = await imageOnlyCopy(bytes, { pages, dpi: DPI, skewDegrees: 1 });
    const copyFile = path.join(dir, 'copy.pdf');
    writeFileSync(copyFile, copy);
    const scanned = new PDFParse({ data: copy.slice(), verbosity: 0 });
    for (const [i, n] of pages.entries()) {
      const reference = (await layer.getText({ partial: [n] })).pages[0]?.text ?? '';
      let t = performance.now();
      const shot = await scanned.getScreenshot({ partial: [i + 1], scale: DPI / 72, imageBuffer: true, imageDataUrl: false });
      const read = await engine.recognize(shot.pages[0]?.data ?? new Uint8Array(), 600_000);
      const js = { s: (performance.now() - t) / 1000, r: wordRecall(reference, read.text) };
      let cli = { s: NaN, r: NaN };
      if (hasCli) {
        t = performance.now();
        const prefix = path.join(dir, 'page');
        execFileSync('pdftoppm', ['-r', String(DPI), '-f', String(i + 1), '-l', String(i + 1), '-singlefile', '-png', copyFile, prefix]);
        // One thread, as the extraction process gives tesseract.js.
        const text = execFileSync('tesseract', [`${prefix}.png`, '-', '-l', 'eng'], {
          env: { ...process.env, OMP_THREAD_LIMIT: '1' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        cli = { s: (performance.now() - t) / 1000, r: wordRecall(reference, text) };
      }
      totals.n++;
      totals.js.s += js.s;
      totals.js.r += js.r;
      totals.cli.s += cli.s;
      totals.cli.r += cli.r;
      console.log(
        `${`${file.slice(0, 28)} p${n}`.padEnd(34)}${js.s.toFixed(1).padStart(6)} s ${js.r.toFixed(3)}             ` +
          `${cli.s.toFixed(1).padStart(6)} s ${cli.r.toFixed(3)}`,
      );
    }
    await layer.destroy();
    await scanned.destroy();
  }
  const n = totals.n;
  console.log(
    `mean over ${n} pages: tesseract.js ${(totals.js.s / n).toFixed(1)} s/page, recall ${(totals.js.r / n).toFixed(3)}; ` +
      `tesseract CLI ${(totals.cli.s / n).toFixed(1)} s/page, recall ${(totals.cli.r / n).toFixed(3)}`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
