import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Token } from 'node-llama-cpp';
import PQueue from 'p-queue';
import { cutRepetition, repetitionStart } from '../../domain/answer-support.js';
import { DependencyError } from '../../errors.js';
import type { ChatModel } from './chat-model.js';

export interface LlamaChatOptions {
  /** A GGUF chat model file. */
  modelPath: string;
  /** Tokens of context; prompts are cut to fit. @default 4096 */
  contextSize?: number;
  /**
   * CPU threads for generation. llama.cpp's default (at least 4) oversubscribes small machines, and generation
   * collapses when its threads compete with other work for the cores (bench/README.md "Measurements cited by code"). One core is left to
   * the API's event loop and the embedder's worker. @default max(1, os.availableParallelism() - 1)
   */
  threads?: number;
  /** Deadline for one answer. @default 30000 */
  timeoutMs?: number;
  /** Most tokens generated for one answer, whatever the caller asks: small models ramble. @default 256 */
  maxAnswerTokens?: number;
}

/** A local chat model, with what its loop guard did (for benchmarks and logs). */
export interface LlamaChatModel extends ChatModel {
  readonly stats: { answers: number; loopsCut: number };
}

/**
 * Against loops. Small models at temperature 0 fall into repeating a sentence or a checkbox line until the token limit
 * (SmolLM2-135M did ~16 times on the corpus). A mild penalty on recently generated word tokens, stop sequences for a
 * model that starts a new turn of the prompt's shape, a token limit, and a detector on the streamed text that stops
 * generation at the first repetition and cuts it. Tokens holding a digit or only punctuation are not penalised: with
 * them penalised, SmolLM2 wrote "15/07/2022 to 14/07/2042" as "15/7/2023 to 14/8/2069" (the second "07" and "20"
 * were penalised), and the support check then rightly dropped the sentence.
 */
const REPEAT_PENALTY = { lastTokens: 64, penalty: 1.1, frequencyPenalty: 0.05, penalizeNewLine: false };
const STOP_TRIGGERS = ['\nQuestion:', '\nPassages:', '\nPassage ', '\n\n\n'];

/**
 * A GGUF chat model run in-process by node-llama-cpp 3, CPU only, with its prebuilt binary (`build: 'never'`: never
 * compiles or downloads at run time). One context sequence, so answers are generated one at a time (a queue), each
 * from a cleared history.
 */
export async function createLlamaChatModel(opts: LlamaChatOptions): Promise<LlamaChatModel> {
  const modelPath = path.resolve(opts.modelPath);
  if (!existsSync(modelPath) || !statSync(modelPath).isFile()) {
    throw new Error(`LLM=local: model file not found: ${modelPath} (run scripts/fetch-models.sh or fix the path)`);
  }
  const threads = opts.threads ?? Math.max(1, availableParallelism() - 1);
  const contextSize = opts.contextSize ?? 4096;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxAnswerTokens = opts.maxAnswerTokens ?? 256;

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
  const stats = { answers: 0, loopsCut: 0 };
  const wordTokens = new Map<Token, boolean>();
  const isWordToken = (token: Token): boolean => {
    let word = wordTokens.get(token);
    if (word === undefined) {
      const text = model.detokenize([token]);
      word = /\p{L}/u.test(text) && !/\d/.test(text);
      wordTokens.set(token, word);
    }
    return word;
  };

  return {
    model: name,
    stats,
    // ~3.5 characters per token, leaving a quarter of the context for instructions and the answer.
    maxPromptChars: Math.floor(contextSize * 0.75 * 3.5) - 1200,
    async complete({ system, user }, { maxTokens, signal }) {
      if (closed) throw new DependencyError('llm', `${name}: the model is closed`, { retryable: false });
      return queue.add(
        async () => {
          const deadline = AbortSignal.timeout(timeoutMs);
          const looping = new AbortController();
          const stop = AbortSignal.any([deadline, looping.signal, ...(signal ? [signal] : [])]);
          await sequence.clearHistory();
          const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system, autoDisposeSequence: false });
          let streamed = '';
          let text: string;
          try {
            text = await session.prompt(user, {
              maxTokens: Math.min(maxTokens, maxAnswerTokens),
              temperature: 0,
              repeatPenalty: { ...REPEAT_PENALTY, punishTokensFilter: (tokens) => tokens.filter(isWordToken) },
              customStopTriggers: STOP_TRIGGERS,
              // A stop keeps what was generated so far: the loop detector's is the normal way out of a loop.
              signal: stop,
              stopOnAbortSignal: true,
              onTextChunk(chunk) {
                streamed += chunk;
                if (!looping.signal.aborted && repetitionStart(streamed) !== null) looping.abort();
              },
            });
          } catch (err) {
            if (deadline.aborted) throw new DependencyError('llm', `${name}: no answer within ${timeoutMs} ms`, { cause: err });
            throw new DependencyError('llm', `${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
          } finally {
            session.dispose({ disposeSequence: false });
          }
          if (deadline.aborted) throw new DependencyError('llm', `${name}: no answer within ${timeoutMs} ms`);
          if (signal?.aborted) throw new DependencyError('llm', `${name}: the request was aborted`, { cause: signal.reason });
          stats.answers++;
          const cut = cutRepetition(text);
          if (cut.cut || looping.signal.aborted) stats.loopsCut++;
          return cut.text;
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
