import { readFileSync } from 'node:fs';

/** One line of a question set (../shared/corpus/qa-dev.jsonl or any file of the same shape). */
export interface Question {
  id: string;
  question: string;
  file: string;
  pages: number[];
  kind: string;
  /** The gold passage, verbatim (empty when the set has none). */
  evidence: string;
}

/** Reads a JSONL question set; a malformed line stops the run with its file:line. */
export function readQuestions(file: string): Question[] {
  const out: Question[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let q: Partial<Question>;
      try {
        q = JSON.parse(line) as Partial<Question>;
      } catch (err) {
        throw new Error(`${file}:${i + 1}: not JSON (${err instanceof Error ? err.message : String(err)})`);
      }
      if (typeof q.question !== 'string' || typeof q.file !== 'string' || !Array.isArray(q.pages)) {
        throw new Error(`${file}:${i + 1}: expected {id, question, file, pages, kind}`);
      }
      out.push({
        id: q.id ?? `line-${i + 1}`,
        question: q.question,
        file: q.file,
        pages: q.pages,
        kind: q.kind ?? 'all',
        evidence: typeof q.evidence === 'string' ? q.evidence : '',
      });
    });
  return out;
}

/** 1-based rank of the first citation on one of the question's pages of its file, or null. */
export function hitRank(q: Question, citations: readonly { documentTitle: string; page: number }[]): number | null {
  const i = citations.findIndex((c) => c.documentTitle === q.file && q.pages.includes(c.page));
  return i >= 0 ? i + 1 : null;
}
