import { deflateSync } from 'node:zlib';

/**
 * Hostile PDFs for the extraction limits, written directly (as make-pdf.ts and scripts/make-demo-pdfs.ts do):
 * many pages sharing one small content stream, or one page whose Flate-compressed content stream inflates to
 * many megabytes of text-showing operators. Both are small on disk and expensive to parse.
 */

function writePdf(objects: string[] | ((id: number) => Buffer | string | undefined), count: number): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  for (let id = 1; id < count; id++) {
    offsets[id] = length;
    const body = typeof objects === 'function' ? objects(id) : objects[id];
    const chunk = Buffer.concat([
      Buffer.from(`${id} 0 obj\n`, 'latin1'),
      typeof body === 'string' || body === undefined ? Buffer.from(body ?? 'null', 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    length += chunk.length;
  }
  let tail = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let id = 1; id < count; id++) tail += `${String(offsets[id] ?? 0).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** `pages` pages that all draw the same line of text (one shared content stream). */
export function manyPagesPdf(pages: number, text = 'A page of a very long document, with some text on it.'): Buffer {
  const ops = `BT /F1 11 Tf 56 780 Td (${text}) Tj ET`;
  // 1 catalog, 2 pages, 3 font, 4 content; pages from 5.
  const count = 5 + pages;
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  return writePdf((id) => {
    if (id === 1) return '<< /Type /Catalog /Pages 2 0 R >>';
    if (id === 2) return `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`;
    if (id === 3) return FONT;
    if (id === 4) return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
    return '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>';
  }, count);
}

/**
 * One page whose content stream inflates to about `inflatedBytes` bytes of text lines (lines of short words down
 * the page, drawn over and over), compressed with FlateDecode to a small fraction of that.
 */
export function hugePagePdf(inflatedBytes: number): Buffer {
  // 60 lines down the page, repeated: every word is on the page (pdf.js drops text drawn outside it).
  const block = Array.from({ length: 60 }, (_, i) => `1 0 0 1 56 ${800 - i * 12} Tm (Bomb bomb bomb) Tj\n`).join('');
  const content = Buffer.from(`BT /F1 10 Tf\n${block.repeat(Math.ceil(inflatedBytes / block.length))}ET\n`, 'latin1');
  return onePagePdf(content);
}

/**
 * One page whose content stream inflates to about `inflatedBytes` bytes that draw one line of text over and over
 * (down the page, then again from the top), compressed with FlateDecode to a few kilobytes: the PDF bomb of issue 45.
 */
export function repeatedLinePdf(
  inflatedBytes: number,
  line = 'The baseline scenario is monitored every year by the project proponent.',
): Buffer {
  const block = Array.from({ length: 60 }, (_, i) => `1 0 0 1 56 ${800 - i * 12} Tm (${line}) Tj\n`).join('');
  const content = Buffer.from(`BT /F1 10 Tf\n${block.repeat(Math.ceil(inflatedBytes / block.length))}ET\n`, 'latin1');
  return onePagePdf(content);
}

/** A one-page PDF whose content stream is `content`, Flate-compressed. */
function onePagePdf(content: Buffer): Buffer {
  const packed = deflateSync(content, { level: 9 });
  const stream = Buffer.concat([
    Buffer.from(`<< /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    packed,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  return writePdf(
    [
      '',
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
      FONT,
      stream.toString('latin1'),
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>',
    ],
    6,
  );
}

/** One page drawing one string literal of `chars` characters: pdf.js builds it a character at a time. */
export function hugeStringPdf(chars: number): Buffer {
  const content = Buffer.concat([
    Buffer.from('BT /F1 10 Tf 56 800 Td (', 'latin1'),
    Buffer.alloc(chars, 'A'),
    Buffer.from(') Tj ET\n', 'latin1'),
  ]);
  return onePagePdf(content);
}
