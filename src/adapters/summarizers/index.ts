import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Summarizer } from '../../ports/summarizer.js';
import type { ChatModel } from './chat-model.js';
import { createExtractiveSummarizer } from './extractive.js';
import { createLlamaChatModel } from './llama.js';
import { createLlmSummarizer } from './llm.js';
import { createOpenAIChatModel } from './openai.js';

export type { ChatModel } from './chat-model.js';
export { createExtractiveSummarizer } from './extractive.js';

type LlmConfig = Pick<Config, 'LLM' | 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'OPENAI_MODEL' | 'LLM_TIMEOUT_MS'>;

/**
 * The configured chat model, or null for `LLM=extractive`. Built once and shared by the summariser and the LLM
 * reranker, so a local model is loaded into memory once.
 */
export async function createChatModel(config: LlmConfig, logger: Logger): Promise<ChatModel | null> {
  const llm = config.LLM;
  if (llm === 'extractive') return null;
  if (llm === 'openai') {
    if (!config.OPENAI_MODEL) throw new Error('LLM=openai needs OPENAI_MODEL');
    logger.info({ model: config.OPENAI_MODEL, baseURL: config.OPENAI_BASE_URL ?? 'default' }, 'LLM: OpenAI-compatible chat');
    return createOpenAIChatModel({
      model: config.OPENAI_MODEL,
      ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
      ...(config.OPENAI_API_KEY ? { apiKey: config.OPENAI_API_KEY } : {}),
      timeoutMs: config.LLM_TIMEOUT_MS,
    });
  }
  if (llm.startsWith('local:')) {
    const modelPath = llm.slice('local:'.length);
    const started = Date.now();
    const chat = await createLlamaChatModel({ modelPath, timeoutMs: config.LLM_TIMEOUT_MS });
    logger.info({ model: chat.model, ms: Date.now() - started }, 'LLM: local GGUF model loaded');
    return chat;
  }
  throw new Error(`unknown LLM setting ${JSON.stringify(llm)}: expected "extractive", "openai" or "local:<path>"`);
}

/**
 * The summariser for answers and project summaries: the chat model when one is configured, else extractive.
 * Callers fall back to `createExtractiveSummarizer()` when an LLM call fails (the search service does).
 */
export async function createSummarizer(config: LlmConfig, logger: Logger, chat?: ChatModel | null): Promise<Summarizer> {
  const model = chat === undefined ? await createChatModel(config, logger) : chat;
  return model ? createLlmSummarizer(model, { logger }) : createExtractiveSummarizer();
}
