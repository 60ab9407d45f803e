import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { PDFParse } from 'pdf-parse';

/**
 * Image-only copies of real PDFs, as a scanner makes them: each page rendered by pdf.js, optionally turned by a
 * small angle (a sheet fed slightly askew), and placed as a JPEG on a page of the original's size with no text
 * layer. Used by the OCR tests and bench/ocr.
 */

export interface ScanOptions {
  /** 1-based pages of the original to copy, in order. @default every page */
  pages?: number[];
  /** Resolution of the page images. @default 150 */
  dpi?: number;
  /** Rotation of each page image in degrees (positive: clockwise). @default 0 */
  skewDegrees?: number;
  /** Pages (1-based, of the copy) that keep the original's page, text layer included: a mixed document. */
  keepText?: number[];
}

/** Renders pages of `bytes` to JPEG images at `dpi`, turned by `skewDegrees` on a white ground. */
export async function scanPages(bytes: Uint8Array, pages: number[], dpi: number, skewDegrees = 0): Promise<Uint8Array[]> {
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 });
  try {
    const out: Uint8Array[] = [];
    for (const n of pages) {
      const shot = await parser.getScreenshot({ partial: [n], scale: dpi / 72, imageBuffer: true, imageDataUrl: false });
      const png = shot.pages.find((p) => p.pageNumber === n)?.data;
      if (!png) throw new Error(`scanPages: page ${n} did not render`);
      const image = await loadImage(Buffer.from(png));
      const canvas = createCanvas(image.width, image.height);
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, image.width, image.height);
      ctx.translate(image.width / 2, image.height / 2);
      ctx.rotate((skewDegrees * Math.PI) / 180);
      ctx.drawImage(image, -image.width / 2, -image.height / 2);
      out.push(new Uint8Array(canvas.toBuffer('image/jpeg', 85)));
    }
    return out;
  } finally {
    await parser.destroy();
  }
}

/** A PDF whose pages are images of the given pages of `bytes` (see ScanOptions). */
export async function imageOnlyCopy(bytes: Uint8Array, opts: ScanOptions = {}): Promise<Uint8Array> {
  const source = await PDFDocument.load(bytes, { ignoreEncryption: true });
  const numbers = opts.pages ?? source.getPageIndices().map((i) => i + 1);
  const keep = new Set(opts.keepText ?? []);
  const scans = await scanPages(
    bytes,
    numbers.filter((_, i) => !keep.has(i + 1)),
    opts.dpi ?? 150,
    opts.skewDegrees ?? 0,
  );
  const copy = await PDFDocument.create();
  let next = 0;
  for (const [i, n] of numbers.entries()) {
    if (keep.has(i + 1)) {
      const [page] = await copy.copyPages(source, [n - 1]);
      if (page) copy.addPage(page);
      continue;
    }
    const { width, height } = source.getPage(n - 1).getSize();
    const jpeg = scans[next++];
    if (!jpeg) throw new Error(`imageOnlyCopy: no image for page ${n}`);
    const image = await copy.embedJpg(jpeg);
    copy.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return copy.save();
}

/** A one-page PDF of random grey noise (a page that holds no text at all), `seed` making it repeatable. */
export async function noisePdf(seed = 1, width = 595, height = 842, dpi = 150): Promise<Uint8Array> {
  const w = Math.round((width * dpi) / 72);
  const h = Math.round((height * dpi) / 72);
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  const data = ctx.createImageData(w, h);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < data.data.length; i += 4) {
    // xorshift32: a repeatable noise without a dependency.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const v = (s >>> 0) & 0xff;
    data.data[i] = v;
    data.data[i + 1] = v;
    data.data[i + 2] = v;
    data.data[i + 3] = 255;
  }
  ctx.putImageData(data, 0, 0);
  const doc = await PDFDocument.create();
  const image = await doc.embedJpg(canvas.toBuffer('image/jpeg', 85));
  doc.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  return doc.save();
}

/** Lower-cased words (letters and digits) of a text. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Share of `reference`'s words (with repeats) that `read` holds too: the word recall of OCR against a text layer. */
export function wordRecall(reference: string, read: string): number {
  const have = new Map<string, number>();
  for (const w of wordsOf(read)) have.set(w, (have.get(w) ?? 0) + 1);
  const want = wordsOf(reference);
  if (want.length === 0) return 1;
  let hit = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      hit++;
      have.set(w, n - 1);
    }
  }
  return hit / want.length;
}
