import OpenAI from 'openai';
import { z } from 'zod';
import { DependencyError } from '../../errors.js';
import type { ChatModel } from './chat-model.js';

export interface OpenAIChatOptions {
  model: string;
  /** Any OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1. @default the SDK's (api.openai.com) */
  baseURL?: string;
  apiKey?: string;
  /** Deadline for one answer, retries included. @default 30000 */
  timeoutMs?: number;
  /** Retries of 408/409/429/5xx and network errors, honouring Retry-After (the SDK's policy). @default 2 */
  maxRetries?: number;
  /** Characters of passages per prompt. @default 24000 (~6k tokens) */
  maxPromptChars?: number;
  /** Replaces the global fetch (tests go through a real loopback server instead). */
  fetch?: typeof fetch;
}

/** Just the fields this adapter reads from a chat completion; a body without them is a protocol error. */
const completionSchema = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: z.string().nullable().optional() }), finish_reason: z.string().nullish() }))
    .min(1),
});

/** Chat completions over the `openai` SDK (v6), for OpenAI or any compatible server. */
export function createOpenAIChatModel(opts: OpenAIChatOptions): ChatModel {
  if (opts.model.trim() === '') throw new Error('OpenAI chat model: a model name is required (OPENAI_MODEL)');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const client = new OpenAI({
    // Compatible local servers often need no key; the SDK refuses an empty one.
    apiKey: opts.apiKey ?? 'not-needed',
    ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
    timeout: timeoutMs,
    maxRetries: opts.maxRetries ?? 2,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });

  return {
    model: opts.model,
    maxPromptChars: opts.maxPromptChars ?? 24_000,
    async complete({ system, user }, { maxTokens, signal }) {
      // The SDK's timeout is per attempt; this deadline bounds the whole call including its retries.
      const deadline = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
      let raw: unknown;
      try {
        raw = await client.chat.completions.create(
          {
            model: opts.model,
            messages: [
              { role: 'system', content: system },
              { role: 'user', content: user },
            ],
            temperature: 0,
            max_tokens: maxTokens,
          },
          { signal: combined },
        );
      } catch (err) {
        if (deadline.aborted) {
          throw new DependencyError('llm', `${opts.model}: no answer within ${timeoutMs} ms`, { cause: err });
        }
        const status = err instanceof OpenAI.APIError ? err.status : undefined;
        const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
        const why = err instanceof Error ? err.message : String(err);
        throw new DependencyError('llm', `${opts.model}: ${status ? `HTTP ${status}: ` : ''}${why}`, { retryable, cause: err });
      }
      const parsed = completionSchema.safeParse(raw);
      if (!parsed.success) {
        throw new DependencyError(
          'llm',
          `${opts.model}: unexpected chat completion body (${parsed.error.issues[0]?.message ?? 'invalid'})`,
          {
            retryable: false,
          },
        );
      }
      return parsed.data.choices[0]?.message.content ?? '';
    },
    async close() {},
  };
}
