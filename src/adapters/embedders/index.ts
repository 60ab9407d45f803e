import { ConfigError } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../ports/embedder.js';

export { EmbedderInputError } from './common.js';

export interface CreateEmbedderOptions {
  /** MODELS_DIR. */
  modelsDir: string;
  /** ALLOW_REMOTE_MODELS. */
  allowRemoteModels: boolean;
  /** OPENAI_BASE_URL / OPENAI_API_KEY; `fetch` is for tests and proxies. */
  openai: { baseURL?: string; apiKey?: string; fetch?: typeof fetch };
  logger?: Logger;
}

export type EmbedderSpec =
  | { kind: 'use' }
  | { kind: 'onnx'; modelId: string }
  | { kind: 'openai'; model: string; dimensions?: number };

/**
 * Parses EMBEDDER: `use` | `onnx:<model id>` | `openai:<model>` | `openai:<model>@<dimensions>` (the last asks
 * text-embedding-3 models for shorter vectors, and matches the id the index records).
 */
export function parseEmbedderSpec(spec: string): EmbedderSpec {
  const s = spec.trim();
  if (s === 'use') return { kind: 'use' };
  if (s.startsWith('onnx:')) {
    const modelId = s.slice('onnx:'.length).trim();
    if (modelId.length === 0) throw new ConfigError(`EMBEDDER=${spec}: expected onnx:<model id>, e.g. onnx:Xenova/all-MiniLM-L6-v2`);
    return { kind: 'onnx', modelId };
  }
  if (s.startsWith('openai:')) {
    const rest = s.slice('openai:'.length).trim();
    const m = /^(.+?)(?:@(\d+))?$/.exec(rest);
    const model = m?.[1]?.trim() ?? '';
    if (model.length === 0) throw new ConfigError(`EMBEDDER=${spec}: expected openai:<model>, e.g. openai:text-embedding-3-small`);
    const dims = m?.[2] === undefined ? undefined : Number(m[2]);
    if (dims !== undefined && !(Number.isInteger(dims) && dims > 0 && dims <= 65_536)) {
      throw new ConfigError(`EMBEDDER=${spec}: dimensions after @ must be an integer from 1 to 65536`);
    }
    return dims === undefined ? { kind: 'openai', model } : { kind: 'openai', model, dimensions: dims };
  }
  throw new ConfigError(`EMBEDDER=${JSON.stringify(spec)}: expected "use", "onnx:<model id>" or "openai:<model>"`);
}

/**
 * Builds the configured embedder. Adapters are imported lazily so that choosing one does not load the others'
 * native runtimes (TensorFlow.js, onnxruntime) into the process.
 */
export async function createEmbedder(spec: string, opts: CreateEmbedderOptions): Promise<Embedder> {
  const parsed = parseEmbedderSpec(spec);
  switch (parsed.kind) {
    case 'use': {
      const { createUseEmbedder } = await import('./use.js');
      return createUseEmbedder(opts.logger ? { logger: opts.logger } : {});
    }
    case 'onnx': {
      const { createOnnxEmbedder } = await import('./onnx.js');
      return createOnnxEmbedder({
        modelId: parsed.modelId,
        modelsDir: opts.modelsDir,
        allowRemoteModels: opts.allowRemoteModels,
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('./openai.js');
      return createOpenAIEmbedder({
        model: parsed.model,
        ...(parsed.dimensions !== undefined ? { dimensions: parsed.dimensions } : {}),
        ...(opts.openai.baseURL ? { baseURL: opts.openai.baseURL } : {}),
        ...(opts.openai.apiKey ? { apiKey: opts.openai.apiKey } : {}),
        ...(opts.openai.fetch ? { fetch: opts.openai.fetch } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
    }
  }
}
