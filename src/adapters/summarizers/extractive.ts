import { normalizedTerms } from '../../domain/query.js';
import { hasTwelveLetters, splitSentences } from '../../domain/sentences.js';
import type { CitedPassage, SummarizeInput, Summarizer } from '../../ports/summarizer.js';

/**
 * The zero-setup summariser: picks the sentences of the cited passages that share the most (rare) words with the
 * question, orders them by passage relevance and position, and marks each with its passage id. It never writes a
 * word that is not in a passage, so it cannot invent an answer.
 */

export interface ExtractiveOptions {
  /** Longest sentence kept whole; longer ones (tables flattened by extraction) are cut at a word boundary. @default 320 */
  maxSentenceChars?: number;
}

interface Sentence {
  passageId: number;
  passageRank: number;
  position: number;
  text: string;
  terms: Set<string>;
}

const DEFAULT_MAX_CHARS = 1200;
/** A sentence is relevant when its question-word weight is at least this share of the best sentence's. */
const RELEVANT_SHARE = 0.35;

function cut(sentence: string, max: number): string {
  if (sentence.length <= max) return sentence;
  const head = sentence.slice(0, max);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:]+$/, '')}\u2026`;
}

/** Removes markers the passage text itself may contain (e.g. reference lists "[12]") so they cannot be confused. */
function stripBrackets(s: string): string {
  return s.replace(/\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\]/g, '').replace(/\s{2,}/g, ' ').trim();
}

/** `Text ends here.` -> `Text ends here [3].`: the marker sits inside the sentence it supports. */
function withMarker(sentence: string, id: number): string {
  const m = /^(.*?)([.!?;:\u2026]*)$/su.exec(sentence.trimEnd());
  return `${m?.[1] ?? sentence} [${id}]${m?.[2] ?? ''}`;
}

export function createExtractiveSummarizer(opts: ExtractiveOptions = {}): Summarizer {
  const maxSentenceChars = opts.maxSentenceChars ?? 320;
  if (!(maxSentenceChars >= 40)) throw new RangeError(`maxSentenceChars must be >= 40, got ${maxSentenceChars}`);

  return {
    model: 'extractive',
    async summarize(input: SummarizeInput): Promise<string> {
      return extractiveAnswer(input.question, input.passages, input.maxChars ?? DEFAULT_MAX_CHARS, maxSentenceChars);
    },
    async close() {},
  };
}

export function extractiveAnswer(
  question: string,
  passages: CitedPassage[],
  maxChars: number,
  maxSentenceChars = 320,
): string {
  if (passages.length === 0) return '';
  const queryTerms = new Set(normalizedTerms(question));

  const sentences: Sentence[] = [];
  passages.forEach((p, rank) => {
    splitSentences(stripBrackets(p.text)).forEach((raw, position) => {
      const text = cut(raw, maxSentenceChars);
      // Fragments (page numbers, headers) carry no answer.
      if (!hasTwelveLetters(text)) return;
      sentences.push({ passageId: p.id, passageRank: rank, position, text, terms: new Set(normalizedTerms(text)) });
    });
  });
  if (sentences.length === 0) {
    // Passages of numbers only (tables): cite the best passage as it is rather than saying nothing.
    const best = passages[0];
    return best ? withMarker(cut(stripBrackets(best.text).replace(/\s+/g, ' '), Math.min(maxChars, maxSentenceChars)), best.id) : '';
  }

  // Inverse sentence frequency: a question word found in few sentences tells more than one found in all.
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of s.terms) if (queryTerms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string): number => Math.log(1 + sentences.length / (df.get(t) ?? sentences.length));

  const all = sentences.map((s) => {
    let overlap = 0;
    for (const t of s.terms) if (queryTerms.has(t)) overlap += idf(t);
    // Retrieval already ranked the passages: earlier passages are more likely to hold the answer.
    const prior = 1 / (1 + s.passageRank);
    // Long sentences match more words by chance; dampen, do not divide, so informative sentences still win.
    const lengthNorm = 1 / Math.sqrt(Math.max(1, s.terms.size / 12));
    return { s, overlap, score: overlap * lengthNorm + 0.6 * prior };
  });
  // Only sentences that share a fair part of the best sentence's question words: a concise answer, not the budget
  // filled with whatever the passages also say (running footers, unrelated findings). Without any shared word, the
  // best passage's opening sentence stands for it.
  const bestOverlap = Math.max(...all.map((x) => x.overlap));
  const scored =
    bestOverlap > 0
      ? all.filter((x) => x.overlap >= RELEVANT_SHARE * bestOverlap)
      : all.filter((x) => x.s.passageRank === 0).slice(0, 1);
  scored.sort((a, b) => b.score - a.score || a.s.passageRank - b.s.passageRank || a.s.position - b.s.position);

  const chosen: Sentence[] = [];
  let used = 0;
  const seenText = new Set<string>();
  for (const { s } of scored) {
    const key = s.text.toLowerCase();
    if (seenText.has(key)) continue;
    const cost = s.text.length + ` [${s.passageId}] `.length;
    if (chosen.length > 0 && used + cost > maxChars) continue;
    chosen.push(s);
    seenText.add(key);
    used += cost;
    if (used >= maxChars) break;
  }
  chosen.sort((a, b) => a.passageRank - b.passageRank || a.position - b.position);

  // Consecutive sentences of one passage share one marker at the end of the run.
  const parts: string[] = [];
  chosen.forEach((s, i) => {
    const next = chosen[i + 1];
    const endsRun = !next || next.passageId !== s.passageId;
    parts.push(endsRun ? withMarker(s.text, s.passageId) : s.text);
  });
  return parts.join(' ');
}
