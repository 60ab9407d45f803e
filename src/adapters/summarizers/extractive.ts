import { composeAnswer, leadSummary } from '../../domain/answer/compose.js';
import type { Quote } from '../../domain/answer/quotes.js';
import { readExtractively } from '../../domain/answer/read.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../domain/answer/tuning.js';
import type { SummarizeInput, Summarizer } from '../../ports/summarizer.js';

/**
 * The zero-setup summariser: the answer is made of the passages' quotes (domain/answer/compose.ts): whole sentences,
 * best first, one per distinct fact, each followed by its passage's marker, within the character budget. It never
 * writes a word that is not in a passage, so it cannot invent an answer.
 */
export function createExtractiveSummarizer(tuning: AnswerTuning = ANSWER_TUNING): Summarizer {
  return {
    model: 'extractive',
    async summarize(input: SummarizeInput): Promise<string> {
      return extractiveAnswer(input, tuning);
    },
    async close() {},
  };
}

export function extractiveAnswer(input: SummarizeInput, tuning: AnswerTuning = ANSWER_TUNING): string {
  const { question, passages } = input;
  if (passages.length === 0) return '';
  const maxChars = input.maxChars ?? tuning.answerChars;
  const answerPassages = passages.map((p, rank) => ({
    id: p.id,
    text: p.text,
    score: p.score ?? 1 - rank / passages.length,
    ...(p.project ? { project: p.project } : {}),
  }));
  if (input.purpose === 'summary') return leadSummary(answerPassages, input.maxChars ?? 1200, tuning);
  // The search's reader chose the quotes already (it read the page around each passage): they are taken as weighed.
  // Without them (a caller with bare passages), the passages are read here.
  const weighed: Quote[] = passages.flatMap((p) =>
    p.quote && p.quoteWeight
      ? [{ passageId: p.id, start: 0, end: p.quote.length, text: p.quote, ...p.quoteWeight, ...(p.quoteCore ? { core: p.quoteCore } : {}) }]
      : [],
  );
  const quotes = weighed.length > 0 ? weighed : readExtractively(question, answerPassages, { tuning }).quotes;
  const answer = composeAnswer(quotes, answerPassages, { maxChars, tuning });
  if (answer !== '') return answer;
  // Passages of numbers only (a table): the best one stands for itself rather than no answer at all.
  const best = passages[0];
  if (!best) return '';
  const flat = best.text.replace(/\s+/g, ' ').trim();
  const max = Math.min(maxChars, 320);
  const head = flat.length <= max ? flat : `${flat.slice(0, flat.lastIndexOf(' ', max)).replace(/[\s,;:]+$/, '')}\u2026`;
  return `${head} [${best.id}]`;
}
