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
