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

/** Whether a piece of the answer `holds` what is looked for and one of its markers cites a citation that `cites`. */
export function pieceCiting<C extends { id: number }>(
  answer: string,
  citations: readonly C[],
  holds: (text: string) => boolean,
  cites: (c: C) => boolean,
): boolean {
  const byId = new Map(citations.map((c) => [c.id, c]));
  return answerPieces(answer).some(
    (p) =>
      holds(p.text) &&
      p.markers.some((id) => {
        const c = byId.get(id);
        return c !== undefined && cites(c);
      }),
  );
}

export function evidenceSupported(
  q: { evidence: string; file: string; pages: number[] },
  answer: string,
  citations: readonly CitedPage[],
  minShare = 0.6,
): boolean {
  return pieceCiting(
    answer,
    citations,
    (text) => evidenceShare(q.evidence, text) >= minShare,
    (c) => c.documentTitle === q.file && q.pages.includes(c.page),
  );
}

/**
 * An answer that states the gold evidence, cited to a passage that holds it, on a page the question does not name:
 * an answer piece holds at least 60% of the evidence's content words and one of its markers cites a passage whose
 * text holds as much, whatever its document and page. Facts repeat across a project's documents (a validation
 * report quotes the PDD; a monitoring report restates the plan), and a question names one place. A diagnostic beside
 * evidenceSupported, never counted as supported.
 */
export function statedElsewhere(
  q: { evidence: string },
  answer: string,
  citations: readonly (CitedPage & { text: string })[],
  minShare = 0.6,
): boolean {
  const holds = (text: string): boolean => evidenceShare(q.evidence, text) >= minShare;
  return pieceCiting(answer, citations, holds, (c) => holds(c.text));
}

export interface QuotedCitation extends CitedPage {
  text: string;
  quote?: string;
}

/**
 * Why an answer is not evidence-supported, from the first step that lost the evidence:
 * - `no-gold-page`: no citation is on a gold page (retrieval);
 * - `passage-lacks`: a gold page is cited, but no such passage holds the evidence (it is elsewhere on the page);
 * - `other-quote`: a cited gold passage holds the evidence, but its quote is another sentence;
 * - `not-answered`: the right quote is there, but the search judged the question unanswered;
 * - `left-out`: the right quote is there, but the answer's budget went to other quotes.
 */
export type UnsupportedReason = 'no-gold-page' | 'passage-lacks' | 'other-quote' | 'not-answered' | 'left-out';

export function unsupportedReason(
  q: { evidence: string; file: string; pages: number[] },
  answered: boolean | undefined,
  citations: readonly QuotedCitation[],
  minShare = 0.6,
): UnsupportedReason {
  const gold = citations.filter((c) => c.documentTitle === q.file && q.pages.includes(c.page));
  if (gold.length === 0) return 'no-gold-page';
  const holding = gold.filter((c) => evidenceShare(q.evidence, c.text) >= minShare);
  if (holding.length === 0) return 'passage-lacks';
  if (!holding.some((c) => evidenceShare(q.evidence, c.quote ?? '') >= minShare)) return 'other-quote';
  return answered === false ? 'not-answered' : 'left-out';
}

/** One line of ../shared/corpus/qa-dev-unanswerable.jsonl: a question whose answer the named projects do not hold. */
export interface UnanswerableQuestion {
  id: string;
  question: string;
  projects: { project_id: number; registry: string }[];
}

/** The objects of a JSONL file, blank lines left out, each with its line's id or `line-<n>`. */
function jsonLines<T>(file: string): { q: Partial<T> & { id?: string }; id: string; where: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const q = JSON.parse(l) as Partial<T> & { id?: string };
      return { q, id: q.id ?? `line-${i + 1}`, where: `${file}:${i + 1}` };
    });
}

export function readUnanswerable(file: string): UnanswerableQuestion[] {
  return jsonLines<UnanswerableQuestion>(file).map(({ q, id, where }) => {
    if (typeof q.question !== 'string' || !Array.isArray(q.projects)) throw new Error(`${where}: expected {id, question, projects}`);
    return { id, question: q.question, projects: q.projects };
  });
}

/** One generic question and, per project label ("CDM 9199"), the fact its documents state. */
export interface GenericQuestion {
  id: string;
  question: string;
  facts: Record<string, string>;
}

export function readGenericQuestions(file: string): GenericQuestion[] {
  return jsonLines<GenericQuestion>(file).map(({ q, id, where }) => {
    if (typeof q.question !== 'string' || typeof q.facts !== 'object' || q.facts === null) {
      throw new Error(`${where}: expected {id, question, facts}`);
    }
    return { id, question: q.question, facts: q.facts };
  });
}

/**
 * Whether a text states a fact: a number or a code (one word: "26,752", "AM0001", "AR-AM0004") as written with or
 * without separators ("26752", "AM 0001") and not inside a longer one ("AR-AM0001" does not state "AM0001"); a
 * name or a place by at least `minShare` of its words (evidenceShare: "Bosques de la Orinoquia S.A." does not state
 * "Bosques de la Primavera S.A.").
 */
export function statesFact(fact: string, text: string, minShare = 0.8): boolean {
  const word = fact.trim();
  if (/^[\d\s,.]+$/u.test(word)) {
    const digits = word.replace(/\D/gu, '');
    return new RegExp(`(?<![\\d.,])${digits}(?!\\d|[.,]\\d)`, 'u').test(text.replace(/(\d)[,.\s](?=\d{3}(?!\d))/gu, '$1'));
  }
  if (!/\s/u.test(word)) {
    const runs = word.match(/\p{L}+|\d+/gu) ?? [];
    return new RegExp(`(?<![\\p{L}\\d-])${runs.join('[\\s./-]?')}(?!\\d)`, 'iu').test(text);
  }
  return evidenceShare(fact, text) >= minShare;
}

/** Whether an answer names the fact, cited to a passage that holds it (see the header). */
export function namesFact(fact: string, answer: string, citations: readonly { id: number; text: string }[]): boolean {
  const holds = (text: string): boolean => statesFact(fact, text);
  return pieceCiting(answer, citations, holds, (c) => holds(c.text));
}
