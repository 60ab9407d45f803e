import { createRequire } from 'node:module';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { createWorker, OEM, type Line, type Worker } from 'tesseract.js';
import type { TextItem } from '../../src/domain/tables.js';

/**
 * OCR of one rendered page with tesseract.js (Tesseract 5's LSTM engine compiled to WebAssembly), in the extraction
 * process (extract-pdf.ts). Everything it needs comes from npm: the engine from `tesseract.js-core`, the English
 * model from `@tesseract.js-data/eng`, read from disk. No URL is ever given to tesseract.js, so it never fetches
 * anything, and `cacheMethod: 'none'` keeps it from writing a copy of the model into the working directory.
 */

export interface OcrPage {
  /** The lines whose confidence reached the threshold, in reading order; paragraphs separated by a blank line. */
  text: string;
  /** Tesseract's mean word confidence over the whole page, 0-100. */
  confidence: number;
  /** The kept lines' words with their positions, for finding the page's tables (ocrTextItems). */
  items: TextItem[];
  /** Lines read, and of those the ones kept. */
  lines: number;
  keptLines: number;
  /** Why the page was not read: blank, not a page of text (see pageImageStats), or over its CPU time. */
  skipped?: 'blank' | 'no-background' | 'cpu-limit';
}

export interface OcrEngine {
  /**
   * Reads an image (PNG, JPEG, ...) of a page, giving up (with no text) once the process has spent `cpuMs` of CPU
   * time on it: CPU time, not wall time, so that a page is not given up because other work shares the machine.
   */
  recognize(image: Uint8Array, cpuMs: number): Promise<OcrPage>;
  close(): Promise<void>;
}

export interface OcrOptions {
  /** A line whose mean word confidence (0-100) is below this is dropped: noise, photographs, stamps. */
  minConfidence: number;
}

/**
 * A page of text is mostly paper: at least this share of its pixels lie near its commonest grey. A photograph or a
 * page of noise is not, and Tesseract spends minutes on one (86 s on a page of noise) to read nothing: it is not
 * read. Measured at 150 dpi (bench/README.md "OCR"): text pages 0.65-0.95, a page of grey noise 0.34.
 */
export const MIN_BACKGROUND_SHARE = 0.5;
/** "Near" the commonest grey, in 0-255 grey levels (paper texture and JPEG noise stay within it). */
const BACKGROUND_SPREAD = 24;
/** Every this-many-th pixel is counted: enough for a histogram, a seventh of the work. */
const PIXEL_STRIDE = 7;
/** How often the CPU time of a page being read is checked. */
const CPU_POLL_MS = 250;
/** A pixel this many grey levels darker than the background is ink; a page with no ink is blank (nothing to read). */
const INK_CONTRAST = 96;

export interface PageImageStats {
  /** Share of the pixels within BACKGROUND_SPREAD grey levels of the commonest grey (0-1). */
  background: number;
  /** Share of the pixels INK_CONTRAST grey levels or more darker than the commonest grey (0-1). */
  ink: number;
}

/** Grey-level statistics of a page image, on every PIXEL_STRIDE-th pixel. */
export async function pageImageStats(image: Uint8Array): Promise<PageImageStats> {
  const img = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  const histogram = new Array<number>(256).fill(0);
  let counted = 0;
  for (let i = 0; i + 2 < px.length; i += 4 * PIXEL_STRIDE) {
    const grey = Math.round(0.299 * (px[i] ?? 0) + 0.587 * (px[i + 1] ?? 0) + 0.114 * (px[i + 2] ?? 0));
    histogram[grey] = (histogram[grey] ?? 0) + 1;
    counted++;
  }
  if (counted === 0) return { background: 0, ink: 0 };
  let mode = 0;
  for (let v = 1; v < 256; v++) if ((histogram[v] ?? 0) > (histogram[mode] ?? 0)) mode = v;
  let near = 0;
  for (let v = Math.max(0, mode - BACKGROUND_SPREAD); v <= Math.min(255, mode + BACKGROUND_SPREAD); v++) near += histogram[v] ?? 0;
  let ink = 0;
  for (let v = 0; v <= mode - INK_CONTRAST; v++) ink += histogram[v] ?? 0;
  return { background: near / counted, ink: ink / counted };
}

/**
 * The English LSTM model ("best_int": integer-quantised, 3 MB, the model tesseract.js itself picks for its LSTM
 * engine) inside the @tesseract.js-data/eng package, as a directory on disk.
 */
export function englishModelDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/** What ocrTextItems reads of a line tesseract.js gives. */
export type OcrLine = Pick<Line, 'baseline' | 'bbox'> & { words: readonly Pick<Line['words'][number], 'text' | 'bbox'>[] };

/**
 * The words of OCR'd lines as positioned text items, as pdf.js gives a text layer's (domain/tables.ts reads tables
 * from them): each word takes its line's baseline and its words' median height, as a run of text has one baseline and
 * one font size.
 * A sheet is scanned askew (at one degree a row's last cell sits a line lower than its first, over a page's width),
 * so positions are turned back by the page's skew, the median slope of its lines' baselines (small angles: y' = y -
 * s x, x' = x + s y').
 */
export function ocrTextItems(lines: readonly OcrLine[]): TextItem[] {
  const slopes = lines
    .map(({ baseline: b }) => (b.x1 > b.x0 ? (b.y1 - b.y0) / (b.x1 - b.x0) : Number.NaN))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const skew = slopes[Math.floor(slopes.length / 2)] ?? 0;
  const items: TextItem[] = [];
  for (const line of lines) {
    const y = line.baseline.y0 - skew * line.baseline.x0;
    // The line's bbox may span a cell wrapped over lines; its words' median height is the size of its type.
    const heights = line.words.map((w) => w.bbox.y1 - w.bbox.y0).sort((a, b) => a - b);
    const height = heights[Math.floor(heights.length / 2)] ?? line.bbox.y1 - line.bbox.y0;
    for (const word of line.words) {
      if (word.text.trim() === '') continue;
      items.push({ str: word.text, x: word.bbox.x0 + skew * y, y, width: word.bbox.x1 - word.bbox.x0, height });
    }
  }
  return items;
}

/** A tesseract.js worker (one thread), created at the first page and kept until close. */
export function createTesseractOcr(opts: OcrOptions): OcrEngine {
  if (!(opts.minConfidence >= 0 && opts.minConfidence <= 100)) {
    throw new RangeError(`minConfidence must be within 0-100, got ${opts.minConfidence}`);
  }
  let worker: Promise<Worker> | null = null;
  const start = (): Promise<Worker> => createWorker('eng', OEM.LSTM_ONLY, { langPath: englishModelDir(), gzip: true, cacheMethod: 'none' });

  const empty = (skipped: OcrPage['skipped']): OcrPage => ({
    text: '',
    confidence: 0,
    items: [],
    lines: 0,
    keptLines: 0,
    ...(skipped ? { skipped } : {}),
  });

  return {
    async recognize(image, cpuMs) {
      const stats = await pageImageStats(image);
      if (stats.ink === 0) return empty('blank');
      if (stats.background < MIN_BACKGROUND_SHARE) return empty('no-background');
      worker ??= start();
      const w = await worker;
      // The process does nothing else while a page is read (one document at a time), so its CPU time is the page's.
      const cpuAtStart = process.cpuUsage();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setInterval(() => {
          const used = process.cpuUsage(cpuAtStart);
          if ((used.user + used.system) / 1000 > cpuMs) resolve(null);
        }, CPU_POLL_MS);
      });
      // tesseract.js reads a Node Buffer as image bytes (a plain Uint8Array would be taken for pixels).
      const read = w.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), {}, { text: true, blocks: true });
      const result = await Promise.race([read, late]).finally(() => clearInterval(timer));
      if (result === null) {
        // A recognition cannot be stopped but by ending its worker; the next page starts a new one.
        read.catch(() => undefined);
        worker = null;
        await w.terminate();
        return empty('cpu-limit');
      }
      const { data } = result;
      const paragraphs: string[] = [];
      const keptLines: Line[] = [];
      let lines = 0;
      for (const block of data.blocks ?? []) {
        for (const para of block.paragraphs) {
          const kept: string[] = [];
          for (const line of para.lines) {
            lines++;
            if (line.confidence < opts.minConfidence) continue;
            keptLines.push(line);
            kept.push(line.text.trim());
          }
          if (kept.length > 0) paragraphs.push(kept.join('\n'));
        }
      }
      return {
        text: paragraphs.join('\n\n'),
        confidence: data.confidence,
        items: ocrTextItems(keptLines),
        lines,
        keptLines: keptLines.length,
      };
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await (await w).terminate();
    },
  };
}
