import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { DependencyError } from '../../errors.js';
import type { ChatModel } from './chat-model.js';

export interface LlamaChatOptions {
  /** A GGUF chat model file. */
  modelPath: string;
  /** Tokens of context; prompts are cut to fit. @default 4096 */
  contextSize?: number;
  /**
   * CPU threads for generation. llama.cpp's default (at least 4) oversubscribes small machines: on 2 busy cores a
   * short answer took 137 s with it, 1.5 s with 2 threads on idle cores, and 2 threads again collapsed (>100 s) when
   * other work shared the cores, while 1 thread stayed at a few seconds. One core is left to the API's event loop
   * and the embedder's worker. @default max(1, os.availableParallelism() - 1)
   */
  threads?: number;
  /** Deadline for one answer. @default 30000 */
  timeoutMs?: number;
}

/**
 * A GGUF chat model run in-process by node-llama-cpp 3, CPU only, with its prebuilt binary (`build: 'never'`: never
 * compiles or downloads at run time). One context sequence, so answers are generated one at a time (a queue), each
 * from a cleared history.
 */
export async function createLlamaChatModel(opts: LlamaChatOptions): Promise<ChatModel> {
  const modelPath = path.resolve(opts.modelPath);
  if (!existsSync(modelPath) || !statSync(modelPath).isFile()) {
    throw new Error(`LLM=local: model file not found: ${modelPath} (run scripts/fetch-models.sh or fix the path)`);
  }
  const threads = opts.threads ?? Math.max(1, availableParallelism() - 1);
  const contextSize = opts.contextSize ?? 4096;
  const timeoutMs = opts.timeoutMs ?? 30_000;

  // Loaded on demand: the native bindings cost start-up time and memory that other configurations do not need.
  const { getLlama, LlamaChatSession, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    maxThreads: threads,
    logLevel: LlamaLogLevel.error,
  });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads, sequences: 1 });
  const sequence = context.getSequence();
  const queue = new PQueue({ concurrency: 1 });
  const name = path.basename(modelPath).replace(/\.gguf$/i, '');
  let closed = false;

  return {
    model: name,
    // ~3.5 characters per token, leaving a quarter of the context for instructions and the answer.
    maxPromptChars: Math.floor(contextSize * 0.75 * 3.5) - 1200,
    async complete({ system, user }, { maxTokens, signal }) {
      if (closed) throw new DependencyError('llm', `${name}: the model is closed`, { retryable: false });
      return queue.add(
        async () => {
          const deadline = AbortSignal.timeout(timeoutMs);
          const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
          await sequence.clearHistory();
          const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system, autoDisposeSequence: false });
          try {
            return await session.prompt(user, { maxTokens, temperature: 0, signal: combined });
          } catch (err) {
            if (deadline.aborted) {
              throw new DependencyError('llm', `${name}: no answer within ${timeoutMs} ms`, { cause: err });
            }
            throw new DependencyError('llm', `${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
          } finally {
            session.dispose({ disposeSequence: false });
          }
        },
        { throwOnTimeout: true },
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue.onIdle();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
