/**
 * Writes small, valid PDFs for tests: one page per entry, each line of text drawn with Helvetica, or a page with no
 * text layer at all (an empty string page with `{ textLayer: false }`). Offsets in the xref table are exact, so
 * pdf.js parses the file without repair.
 */
export function makePdf(pages: string[], opts: { textLayer?: boolean } = {}): Buffer {
  const textLayer = opts.textLayer ?? true;
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then per page: page object and its content stream.
  const first = 4;
  pages.forEach((text, i) => {
    const pageId = first + i * 2;
    const contentId = pageId + 1;
    pageIds.push(pageId);
    const lines = textLayer ? text.split('\n') : [];
    const escaped = lines.map((l) => l.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)'));
    const ops = textLayer ? `BT /F1 11 Tf 14 TL 56 780 Td ${escaped.map((l) => `(${l}) Tj T*`).join(' ')} ET` : '0.5 g 56 56 480 700 re f';
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`;
    objects[contentId] = `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`;
  });
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id] ?? 'null'}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id] ?? 0).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
