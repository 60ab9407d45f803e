import { checkAnswerSupport, cutRepetition, statesNotFound } from '../../domain/answer-support.js';
import { validateMarkers } from '../../domain/markers.js';
import type { Logger } from '../../logger.js';
import type { SummarizeInput, Summarizer } from '../../ports/summarizer.js';
import { ANSWER_SYSTEM_PROMPT, answerPrompt, type ChatModel } from './chat-model.js';

/** Why an answer was not grounded: nothing came back, the model said the passages do not answer, or nothing it said is supported. */
export type UngroundedReason = 'empty' | 'not_found' | 'unsupported';

/** The answer could not be grounded in the passages: the caller falls back to the extractive answer. */
export class UngroundedAnswerError extends Error {
  readonly reason: UngroundedReason;
  constructor(message: string, reason: UngroundedReason = 'unsupported') {
    super(message);
    this.name = 'UngroundedAnswerError';
    this.reason = reason;
  }
}

export interface LlmSummarizerOptions {
  /** Where dropped sentences and cut repetitions are reported (warn). @default none */
  logger?: Logger;
}

const DEFAULT_MAX_CHARS = 1200;

/**
 * A summariser over any chat model, holding it to the contract of the extractive answer (CONTRACT 2, Evidence and
 * abstention). The model reads each passage's quote in context; its reply is then checked sentence by sentence: a
 * repeated tail is cut, markers that cite no passage are removed, a sentence without a marker gets the one of the
 * passage that supports it, a sentence that its cited passages do not support (content words, numbers, codes) is
 * dropped and logged, and whole sentences past the `maxChars` budget are left out. A reply left with no sentence is rejected (UngroundedAnswerError, with its reason), so the
 * service answers extractively instead of returning prose it cannot cite.
 */
export function createLlmSummarizer(chat: ChatModel, opts: LlmSummarizerOptions = {}): Summarizer {
  const log = opts.logger;
  return {
    model: chat.model,
    async summarize(input: SummarizeInput, signal?: AbortSignal): Promise<string> {
      if (input.passages.length === 0) return '';
      const maxChars = input.maxChars ?? DEFAULT_MAX_CHARS;
      const user = answerPrompt(input.question, input.passages, chat.maxPromptChars, maxChars);
      // ~3.5 characters per token in English, with room to finish the sentence in progress.
      const maxTokens = Math.ceil(maxChars / 3.5) + 32;
      const reply = (await chat.complete({ system: ANSWER_SYSTEM_PROMPT, user }, { maxTokens, ...(signal ? { signal } : {}) })).trim();
      if (reply === '') throw new UngroundedAnswerError(`${chat.model} returned an empty answer`, 'empty');

      const unlooped = cutRepetition(reply);
      if (unlooped.cut) log?.warn({ model: chat.model, reply: reply.slice(0, 2000) }, 'LLM answer repeated itself; the repetition was cut');
      const validated = validateMarkers(
        unlooped.text,
        input.passages.map((p) => p.id),
      );
      const support = checkAnswerSupport(validated.text, input.passages, { maxChars });
      if (support.dropped.length > 0) {
        log?.warn(
          {
            model: chat.model,
            question: input.question,
            kept: support.kept.length,
            dropped: support.dropped.map((d) => ({
              sentence: d.sentence,
              cites: d.cites,
              share: Math.round(d.share * 100) / 100,
              missing: d.missing,
            })),
          },
          'LLM answer: sentences not supported by the passages they cite were dropped',
        );
      }
      if (support.kept.length > 0) return support.text;
      if (statesNotFound(validated.text)) {
        throw new UngroundedAnswerError(`${chat.model} answered that the passages do not answer the question`, 'not_found');
      }
      throw new UngroundedAnswerError(`${chat.model}: no sentence of its answer is supported by the passage it cites`, 'unsupported');
    },
    close: () => chat.close(),
  };
}
