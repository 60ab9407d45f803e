/**
 * Child process of the extract stage (extract.ts): runs pdf.js on one document at a time, off the ingestion
 * process. The parent enforces the time limit (kills this process) and the memory limit (this process's
 * --max-old-space-size); the page and text caps are checked here (extract-pdf.ts). Pages without text are read by
 * the process's OCR engine (ocr.ts), started at the first such page and kept for the next documents.
 */
import { extractPdfPagesHere, type ExtractCaps, type ExtractResult } from './extract-pdf.js';
import { createTesseractOcr, type OcrEngine } from './ocr.js';

export type ExtractRequest = { id: number; bytes: Uint8Array; caps: ExtractCaps };
export type ExtractResponse =
  | { type: 'ready' }
  /** Sent before a page is read by OCR: the parent gives the document that page's time more (extract.ts). */
  | { type: 'ocr-page'; id: number; page: number }
  | { type: 'result'; id: number; result: ExtractResult };

/** The smallest PDF with one (empty) page: parsing it once loads pdf.js's own worker code before `ready`. */
function emptyPdf(): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 4\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const send = process.send?.bind(process);
if (!send) throw new Error('extract-worker: not started as a child process with an IPC channel');
// The parent gone, nothing is left to do.
process.on('disconnect', () => process.exit(0));
// Loading pdf.js's code takes a while (more under tsx): not a document's time.
await extractPdfPagesHere(emptyPdf(), { maxPages: 1, maxTextChars: 1, maxPageChars: 1, ocr: null });

let ocr: { engine: OcrEngine; minConfidence: number } | null = null;
function ocrEngine(minConfidence: number): OcrEngine {
  if (ocr?.minConfidence !== minConfidence) {
    void ocr?.engine.close();
    ocr = { engine: createTesseractOcr({ minConfidence }), minConfidence };
  }
  return ocr.engine;
}

process.on('message', (req: ExtractRequest) => {
  const hooks = req.caps.ocr
    ? {
        engine: ocrEngine(req.caps.ocr.minConfidence),
        onPage: (page: number) => send({ type: 'ocr-page', id: req.id, page } satisfies ExtractResponse),
      }
    : undefined;
  // pdf.js takes the bytes as its own (it may detach them): a Uint8Array of this process, as IPC delivered it.
  void extractPdfPagesHere(new Uint8Array(req.bytes), req.caps, hooks)
    .catch((err: unknown): ExtractResult => ({ ok: false, kind: 'failed', reason: `PDF could not be parsed (${String(err)})` }))
    .then((result) => {
      const res: ExtractResponse = { type: 'result', id: req.id, result };
      send(res);
    });
});
send({ type: 'ready' } satisfies ExtractResponse);
