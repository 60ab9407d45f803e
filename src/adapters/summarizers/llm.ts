import { attachMarkers, validateMarkers } from '../../domain/markers.js';
import type { SummarizeInput, Summarizer } from '../../ports/summarizer.js';
import { ANSWER_SYSTEM_PROMPT, answerPrompt, type ChatModel } from './chat-model.js';

/** The answer could not be grounded in the passages: the caller falls back to the extractive answer. */
export class UngroundedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UngroundedAnswerError';
  }
}

const DEFAULT_MAX_CHARS = 1200;

/**
 * A summariser over any chat model. The reply is checked before it is returned: markers that cite no passage are
 * removed; a reply without markers gets them where a passage clearly supports a sentence (attachMarkers); a reply
 * still without any is rejected (UngroundedAnswerError), so the service answers extractively instead of returning
 * prose it cannot cite. An empty reply is rejected the same way.
 */
export function createLlmSummarizer(chat: ChatModel): Summarizer {
  return {
    model: chat.model,
    async summarize(input: SummarizeInput, signal?: AbortSignal): Promise<string> {
      if (input.passages.length === 0) return '';
      const maxChars = input.maxChars ?? DEFAULT_MAX_CHARS;
      const user = answerPrompt(input.question, input.passages, chat.maxPromptChars, maxChars);
      // ~3.5 characters per token in English, with room to finish the sentence in progress.
      const maxTokens = Math.ceil(maxChars / 3.5) + 32;
      const reply = (await chat.complete({ system: ANSWER_SYSTEM_PROMPT, user }, { maxTokens, ...(signal ? { signal } : {}) })).trim();
      if (reply === '') throw new UngroundedAnswerError(`${chat.model} returned an empty answer`);
      const ids = input.passages.map((p) => p.id);
      const validated = validateMarkers(reply, ids);
      if (validated.kept.length > 0) return validated.text;
      const attached = attachMarkers(validated.text, input.passages);
      if (attached.added > 0) return validateMarkers(attached.text, ids).text;
      throw new UngroundedAnswerError(
        `${chat.model} answered without citing any passage and no sentence of its answer matches a passage`,
      );
    },
    close: () => chat.close(),
  };
}
