import { composeAnswer, findEvidence, leadSummary, type Evidence, type Quote } from '../../domain/evidence.js';
import type { SummarizeInput, Summarizer } from '../../ports/summarizer.js';

/**
 * The zero-setup summariser: the answer is made of the passages' quotes (domain/evidence.ts): whole sentences that
 * hold the question's words, best first, one per distinct fact, each followed by its passage's marker, within the
 * character budget. It never writes a word that is not in a passage, so it cannot invent an answer.
 */

const DEFAULT_MAX_CHARS = 600;

export function createExtractiveSummarizer(): Summarizer {
  return {
    model: 'extractive',
    async summarize(input: SummarizeInput): Promise<string> {
      return extractiveAnswer(input);
    },
    async close() {},
  };
}

export function extractiveAnswer(input: SummarizeInput): string {
  const { question, passages } = input;
  if (passages.length === 0) return '';
  // Passages come best first; without scores, their order stands for them. An answer is made of the quotes when the
  // search chose them (it read the pages around each passage for them), of the passages' own sentences otherwise.
  const evidencePassages = passages.map((p, rank) => ({
    id: p.id,
    text: input.purpose !== 'summary' && p.quote ? p.quote : p.text,
    score: p.score ?? 1 - rank / passages.length,
    ...(p.project ? { project: p.project } : {}),
  }));
  // The search weighed every quote against the question already (with the words naming the projects left out):
  // the quotes are taken whole, in its order.
  const weighed: Quote[] = [];
  for (const p of passages) {
    if (p.quote && p.quoteWeight) {
      weighed.push({
        passageId: p.id,
        start: 0,
        end: p.quote.length,
        text: p.quote,
        ...p.quoteWeight,
        ...(p.quoteLabel ? { label: p.quoteLabel } : {}),
        ...(p.quoteCore ? { core: p.quoteCore } : {}),
      });
    }
  }
  const evidence: Evidence =
    weighed.length > 0 ? { quotes: weighed, answered: true, support: 1 } : findEvidence(question, evidencePassages);
  const answer =
    input.purpose === 'summary'
      ? leadSummary(evidencePassages, input.maxChars ?? 1200)
      : composeAnswer(evidence, evidencePassages, {
          maxChars: input.maxChars ?? DEFAULT_MAX_CHARS,
          ...(input.eachProject ? { eachProject: true } : {}),
        });
  if (answer !== '') return answer;
  // Passages of numbers only (a table): the best one stands for itself rather than no answer at all.
  const best = passages[0];
  if (!best) return '';
  const flat = best.text.replace(/\s+/g, ' ').trim();
  const max = Math.min(input.maxChars ?? DEFAULT_MAX_CHARS, 320);
  const head = flat.length <= max ? flat : `${flat.slice(0, flat.lastIndexOf(' ', max)).replace(/[\s,;:]+$/, '')}\u2026`;
  return `${head} [${best.id}]`;
}
