import type { Quote } from '../../domain/answer/quotes.js';
import { readExtractively, scoredCandidates } from '../../domain/answer/read.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../domain/answer/tuning.js';
import type { Logger } from '../../logger.js';
import type { Reader } from '../../ports/reader.js';
import type { ChatModel } from '../summarizers/chat-model.js';
import { parseRanking } from '../rerankers/llm.js';

export interface LlmReaderOptions {
  chat: ChatModel;
  logger: Logger;
  /** Candidate sentences shown to the model, the best by BM25 first. @default 40 */
  window?: number;
  tuning?: AnswerTuning;
}

const SYSTEM = [
  'You find the sentences that answer a question.',
  'Reply with the numbers of the sentences that answer it, the most direct first, separated by commas, e.g. "7, 2".',
  'If no sentence answers the question, reply "none".',
].join(' ');

/**
 * A reader that asks the configured chat model which sentences answer (READER=llm): the passages' quotable
 * sentences, the best `window` by BM25, are shown numbered; the model names the ones that answer. Its choice is
 * checked by construction: only sentences of the passages can be named, so every quote is verbatim, and a reply that
 * names none (or "none") is a refusal. A failed call answers extractively, logged.
 */
export function createLlmReader(opts: LlmReaderOptions): Reader {
  const window = opts.window ?? 40;
  const tuning = opts.tuning ?? ANSWER_TUNING;
  return {
    id: `reader-llm:${opts.chat.model}`,
    async read(request, signal) {
      const lexical = scoredCandidates(request.question, request.passages, { scope: request.scope, tuning });
      const shown = [...lexical.candidates].sort((a, b) => b.score - a.score).slice(0, window);
      if (shown.length === 0) return { quotes: [], support: 0, answered: false };
      const user = [
        'Sentences:',
        ...shown.map((c, i) => `[${i + 1}] ${c.text.replace(/\s+/gu, ' ')}`),
        '',
        `Question: ${request.question}`,
        'Sentences that answer it:',
      ].join('\n');
      let picked: number[];
      try {
        const reply = await opts.chat.complete({ system: SYSTEM, user }, { maxTokens: 64, ...(signal ? { signal } : {}) });
        picked = /\bnone\b/iu.test(reply) && !/\d/u.test(reply) ? [] : parseRanking(reply, shown.length);
      } catch (err) {
        opts.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'sentence reading by the LLM failed; read extractively',
        );
        return readExtractively(request.question, request.passages, { scope: request.scope, tuning });
      }
      const quotes: Quote[] = [];
      picked.forEach((n, rank) => {
        const c = shown[n - 1];
        if (!c || quotes.some((q) => q.passageId === c.passageId)) return;
        quotes.push({
          passageId: c.passageId,
          start: c.start,
          end: c.end,
          text: c.text,
          score: 1 - rank / (picked.length + 1),
          coverage: 1,
        });
      });
      return { quotes, support: quotes.length > 0 ? 1 : 0, answered: quotes.length > 0 };
    },
  };
}
