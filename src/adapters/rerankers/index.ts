import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Reranker } from '../../ports/reranker.js';
import type { ChatModel } from '../summarizers/chat-model.js';
import { createLlmReranker } from './llm.js';
import { createPassThroughReranker } from './none.js';

export { createPassThroughReranker } from './none.js';
export { createLlmReranker } from './llm.js';

/** RERANKER=llm reranks with the configured chat model (it needs LLM=openai or LLM=local:...); `none` keeps fused order. */
export function createReranker(config: Pick<Config, 'RERANKER'>, logger: Logger, chat: ChatModel | null): Reranker {
  if (config.RERANKER === 'none') return createPassThroughReranker();
  if (!chat) {
    throw new Error('RERANKER=llm needs a chat model: set LLM=openai (with OPENAI_MODEL) or LLM=local:<path to .gguf>');
  }
  return createLlmReranker({ chat, logger });
}
