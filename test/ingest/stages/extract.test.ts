import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfExtractor, extract } from '../../../ingest/stages/extract.js';
import type { DocumentWorkItem, StageContext } from '../../../ingest/types.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';
import { makePdf } from '../support/make-pdf.js';

/** One extraction pool for the file, closed after it (as a composition root owns one for its process). */
const extractor = createPdfExtractor();
afterAll(async () => {
  await extractor.close();
});

interface Question {
  id: string;
  file: string;
  pages: number[];
  evidence: string;
}

/** Page counts from SOURCES.md (pdfinfo). */
const PAGE_COUNTS: Record<string, number> = {
  'VCS5533_project_description.pdf': 66,
  'methodology_VM0001.pdf': 17,
  'methodology_VM0003.pdf': 60,
  'CDM_GFL-HFC23_validation_report.pdf': 16,
  'CDM_GFL-HFC23_registration_request_form.pdf': 11,
};

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
const words = (s: string): string[] =>
  norm(s)
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

describeWithService('extract on corpus PDFs', { available: corpusAvailable, why: 'corpus not found' }, () => {
  const pages = new Map<string, string[]>();
  let questions: Question[] = [];

  beforeAll(async () => {
    for (const file of Object.keys(PAGE_COUNTS)) {
      const r = await extractor.extract(readFileSync(corpusPath('pdf', file)));
      if (!r.ok) throw new Error(`${file}: ${r.reason}`);
      pages.set(file, r.pages);
    }
    questions = readFileSync(corpusPath('qa-dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Question)
      .filter((q) => q.file in PAGE_COUNTS);
  });

  it('gives one text per physical page, as many as pdfinfo counts', () => {
    for (const [file, count] of Object.entries(PAGE_COUNTS)) expect(pages.get(file)?.length, file).toBe(count);
  });

  it('puts the evidence of qa-dev questions on the page the question names (whitespace-normalised)', () => {
    // These evidence strings are running prose; pdf.js and pdftotext agree on them verbatim.
    const verbatim = ['dev-002', 'dev-003', 'dev-006', 'dev-011', 'dev-015', 'dev-022', 'dev-023', 'dev-030'];
    for (const id of verbatim) {
      const q = questions.find((x) => x.id === id);
      if (!q) throw new Error(`question ${id} missing from qa-dev.jsonl`);
      const doc = pages.get(q.file) ?? [];
      const onPage = q.pages.some((p) => norm(doc[p - 1] ?? '').includes(norm(q.evidence)));
      expect(onPage, `${id}: "${q.evidence.slice(0, 60)}" on ${q.file} pages ${q.pages.join(',')}`).toBe(true);
      // ... and not merely somewhere: the pages that are not listed do not all contain it.
      expect(doc.filter((t) => norm(t).includes(norm(q.evidence))).length).toBeLessThan(doc.length);
    }
  });

  it('keeps the words of every question of these files on a listed page, tables included', () => {
    expect(questions.length).toBeGreaterThanOrEqual(9);
    for (const q of questions) {
      const doc = pages.get(q.file) ?? [];
      const want = words(q.evidence);
      const best = Math.max(
        ...q.pages.map((p) => {
          const have = new Set(words(doc[p - 1] ?? ''));
          return want.filter((w) => have.has(w)).length / want.length;
        }),
      );
      // A superscript ordinal is extracted as two words ("6th" -> "6 th"): a short evidence may lose one word that way.
      expect(best, `${q.id} word coverage`).toBeGreaterThanOrEqual(Math.min(0.9, (want.length - 1) / want.length));
    }
  });
});

describe('extract on broken and unusual input', () => {
  it('fails a truncated PDF with the parser reason', async () => {
    const full = corpusAvailable ? readFileSync(corpusPath('pdf', 'methodology_VM0001.pdf')) : makePdf(['some text on a page'.repeat(5)]);
    const r = await extractor.extract(full.subarray(0, Math.floor(full.length / 2)));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.kind).toBe('failed');
      expect(r.reason).toMatch(/PDF could not be parsed \(\w+: .+\)/);
    }
  });

  it('fails bytes that only start like a PDF', async () => {
    const r = await extractor.extract(Buffer.from('%PDF-1.7\nthis is not a pdf body'));
    expect(r).toMatchObject({ ok: false, kind: 'failed' });
  });

  it('marks a PDF without a text layer as needs_ocr', async () => {
    const r = await extractor.extract(makePdf(['', '', ''], { textLayer: false }));
    // Blank pages (a grey box, no ink) are tried by OCR, which finds nothing to read on them.
    expect(r).toEqual({
      ok: false,
      kind: 'needs_ocr',
      reason: 'no text layer on any of 3 page(s), and OCR read no confident text on the 3 page(s) it tried',
    });
  });

  it('returns normalised text of each page, empty pages included, in order', async () => {
    const r = await extractor.extract(makePdf(['First page\twith a tab and VM0007.', '', 'Third page: 26752 tCO2e per year.']));
    expect(r).toEqual({
      ok: true,
      pages: ['First page with a tab and VM0007.', '', 'Third page: 26752 tCO2e per year.'],
      ocrPages: [],
    });
  });

  it('as a stage, sets the outcome instead of throwing, and leaves the input bytes usable', async () => {
    const bytes = makePdf(['Readable text on the only page of this document.']);
    const item: DocumentWorkItem = {
      ref: { registry: 'Verra', projectId: 1 },
      documentId: 'd1',
      uri: 'https://registry.verra.org/d1.pdf',
      title: 'd1.pdf',
      documentType: 'Other',
      uploadDate: null,
      previous: null,
      content: { bytes, contentType: 'application/pdf', contentHash: 'h', finalUrl: 'x' },
    };
    // The stage reads only the extractor.
    const ctx = { extractor } as unknown as StageContext;
    const ok = await extract(item, ctx);
    expect(ok.pages).toEqual(['Readable text on the only page of this document.']);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const bad = await extract(
      { ...item, content: { bytes: Buffer.from('garbage'), contentType: null, contentHash: 'g', finalUrl: 'x' } },
      ctx,
    );
    expect(bad.outcome?.kind).toBe('failed');
  });
});

describe('documents extracted at once', () => {
  /** Extraction processes that are children of this test process (vitest runs each file in a process of its own). */
  function extractionProcesses(): number {
    const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out.split('\n').filter((line) => line.includes('extract-worker')).length;
  }

  it('runs at most `processes` documents at once; the others wait their turn and are read in full', async () => {
    const pool = createPdfExtractor({ processes: 1 });
    const before = extractionProcesses();
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, extractionProcesses() - before)), 20);
    try {
      const pdfs = [0, 1, 2].map((i) => makePdf([`document ${i} has some text on its only page`.repeat(3)]));
      const results = await Promise.all(pdfs.map((pdf) => pool.extract(pdf)));
      expect(results.map((r) => r.ok && r.pages[0]?.startsWith(`document `))).toEqual([true, true, true]);
      expect(most).toBe(1);
    } finally {
      clearInterval(watch);
      await pool.close();
    }
  }, 120_000);
});
