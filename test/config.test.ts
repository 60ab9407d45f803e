import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('SENTENCE_VECTORS', () => {
  it('auto: on for onnx sentence-transformers models, off for use and openai', () => {
    expect(loadConfig({}).SENTENCE_VECTORS).toBe(false);
    expect(loadConfig({ EMBEDDER: 'onnx:Xenova/all-MiniLM-L6-v2' }).SENTENCE_VECTORS).toBe(true);
    expect(loadConfig({ EMBEDDER: 'openai:text-embedding-3-small' }).SENTENCE_VECTORS).toBe(false);
    expect(loadConfig({ EMBEDDER: 'onnx:Xenova/all-MiniLM-L6-v2', SENTENCE_VECTORS: 'auto' }).SENTENCE_VECTORS).toBe(true);
  });

  it('true or false whatever the embedder, and a clear error otherwise', () => {
    expect(loadConfig({ SENTENCE_VECTORS: 'true' }).SENTENCE_VECTORS).toBe(true);
    expect(loadConfig({ SENTENCE_VECTORS: '1' }).SENTENCE_VECTORS).toBe(true);
    expect(loadConfig({ EMBEDDER: 'onnx:Xenova/all-MiniLM-L6-v2', SENTENCE_VECTORS: 'false' }).SENTENCE_VECTORS).toBe(false);
    expect(() => loadConfig({ SENTENCE_VECTORS: 'sometimes' })).toThrow(ConfigError);
    expect(() => loadConfig({ SENTENCE_VECTORS: 'sometimes' })).toThrow(/SENTENCE_VECTORS: .*got "sometimes"/);
  });
});

describe('DEMO_DATA (issue 16.9)', () => {
  it('defaults to true, but to false under NODE_ENV=production; an explicit value wins', () => {
    expect(loadConfig({}).DEMO_DATA).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).DEMO_DATA).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', DEMO_DATA: 'true' }).DEMO_DATA).toBe(true);
    expect(loadConfig({ DEMO_DATA: 'false' }).DEMO_DATA).toBe(false);
  });
});

describe('HTTP server limits (issue 16.2)', () => {
  it('has short defaults, and refuses a headers timeout longer than the request timeout', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ MAX_CONNECTIONS: 512, HEADERS_TIMEOUT_MS: 10_000, REQUEST_TIMEOUT_MS: 30_000, KEEP_ALIVE_TIMEOUT_MS: 5_000 });
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrow(/HEADERS_TIMEOUT_MS/);
  });
});

describe('LLM and RERANKER, parsed into a spec', () => {
  it('reads LLM as extractive, openai (with OPENAI_MODEL) or local:<path>, defaulting by OPENAI_MODEL', () => {
    expect(loadConfig({}).LLM).toEqual({ kind: 'extractive' });
    expect(loadConfig({ OPENAI_MODEL: 'gpt-x' }).LLM).toEqual({ kind: 'openai', model: 'gpt-x' });
    expect(loadConfig({ LLM: 'openai', OPENAI_MODEL: 'gpt-x' }).LLM).toEqual({ kind: 'openai', model: 'gpt-x' });
    expect(loadConfig({ LLM: 'local:/models/a.gguf' }).LLM).toEqual({ kind: 'local', modelPath: '/models/a.gguf' });
    expect(loadConfig({ LLM: 'extractive', OPENAI_MODEL: 'gpt-x' }).LLM).toEqual({ kind: 'extractive' });
  });

  it('refuses LLM=openai without OPENAI_MODEL, and RERANKER=llm without a chat model', () => {
    expect(() => loadConfig({ LLM: 'openai' })).toThrow(/OPENAI_MODEL: required when LLM=openai/);
    expect(() => loadConfig({ LLM: 'gpt' })).toThrow(/LLM: expected "extractive", "openai" or "local:<path>" \(got "gpt"\)/);
    expect(() => loadConfig({ RERANKER: 'llm' })).toThrow(ConfigError);
    expect(() => loadConfig({ RERANKER: 'llm' })).toThrow(/RERANKER: RERANKER=llm needs a chat model/);
    expect(loadConfig({ RERANKER: 'llm', LLM: 'local:/models/a.gguf' }).RERANKER).toBe('llm');
  });
});

describe('OCR settings (issue 44)', () => {
  it('reach the extraction limits the CLI, the API and the queue workers build, and OCR_MAX_PAGES=0 turns OCR off', async () => {
    const { extractLimitsFromConfig } = await import('../ingest/deps.js');
    const { DEFAULT_OCR_CAPS } = await import('../ingest/stages/extract.js');
    expect(extractLimitsFromConfig(loadConfig({})).ocr).toEqual(DEFAULT_OCR_CAPS);
    const set = loadConfig({ OCR_MAX_PAGES: '12', OCR_DPI: '200', OCR_MIN_CONFIDENCE: '55', OCR_PAGE_CPU_MS: '9000' });
    expect(extractLimitsFromConfig(set).ocr).toEqual({ maxPages: 12, dpi: 200, minConfidence: 55, pageCpuMs: 9000 });
    expect(extractLimitsFromConfig(loadConfig({ OCR_MAX_PAGES: '0' })).ocr).toBeNull();
    expect(() => loadConfig({ OCR_MIN_CONFIDENCE: '101' })).toThrow(/OCR_MIN_CONFIDENCE/);
  });
});
