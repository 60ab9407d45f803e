import { readFileSync } from 'node:fs';
import { normalizedTerms } from '../../src/domain/query.js';

/**
 * Answer quality measures of the evaluation (issue "Answers a researcher can trust"):
 * - evidence-supported: a piece of the answer that ends at a run of markers holds at least 60% of the content words
 *   of the question's gold `evidence`, and one of those markers cites a passage on a gold page of the gold file;
 * - abstention: `answered` false on questions whose answer is absent from the named project's documents, true on
 *   the answerable ones.
 */

export interface AnswerPiece {
  text: string;
  markers: number[];
}

/** The answer cut after each run of markers: `A [1]. B [2][3].` -> `A` cites 1, `B` cites 2 and 3. */
export function answerPieces(answer: string): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  for (const m of answer.matchAll(/([^[\]]*?)((?:\s*\[\d+(?:\s*,\s*\d+)*\])+)/g)) {
    const markers = [...(m[2] ?? '').matchAll(/\d+/g)].map((d) => Number(d[0]));
    pieces.push({ text: m[1] ?? '', markers });
  }
  return pieces;
}

/** Share of the evidence's content words (stemmed, stop words left out) that the text holds. */
export function evidenceShare(evidence: string, text: string): number {
  const want = new Set(normalizedTerms(evidence));
  if (want.size === 0) return 0;
  const have = new Set(normalizedTerms(text));
  let n = 0;
  for (const t of want) if (have.has(t)) n++;
  return n / want.size;
}

export interface CitedPage {
  id: number;
  documentTitle: string;
  page: number;
}

export function evidenceSupported(
  q: { evidence: string; file: string; pages: number[] },
  answer: string,
  citations: readonly CitedPage[],
  minShare = 0.6,
): boolean {
  const byId = new Map(citations.map((c) => [c.id, c]));
  return answerPieces(answer).some(
    (p) =>
      evidenceShare(q.evidence, p.text) >= minShare &&
      p.markers.some((id) => {
        const c = byId.get(id);
        return c !== undefined && c.documentTitle === q.file && q.pages.includes(c.page);
      }),
  );
}

/** One line of ../shared/corpus/qa-dev-unanswerable.jsonl: a question whose answer the named projects do not hold. */
export interface UnanswerableQuestion {
  id: string;
  question: string;
  projects: { project_id: number; registry: string }[];
}

export function readUnanswerable(file: string): UnanswerableQuestion[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const q = JSON.parse(l) as Partial<UnanswerableQuestion>;
      if (typeof q.question !== 'string' || !Array.isArray(q.projects))
        throw new Error(`${file}:${i + 1}: expected {id, question, projects}`);
      return { id: q.id ?? `line-${i + 1}`, question: q.question, projects: q.projects };
    });
}
