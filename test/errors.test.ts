import { describe, expect, it } from 'vitest';
import { formatEmbedderSpec, loadConfig } from '../src/config.js';
import { EmbedderMismatchError } from '../src/errors.js';

describe('EmbedderMismatchError', () => {
  it.each([
    ['use-lite-512 (512 dimensions)', 'use'],
    ['onnx:Xenova/all-MiniLM-L6-v2 (384 dimensions)', 'onnx:Xenova/all-MiniLM-L6-v2'],
    ['openai:text-embedding-3-small@1536 (1536 dimensions)', 'openai:text-embedding-3-small'],
  ])('for an index built by %s, suggests EMBEDDER=%s, a value the configuration accepts', (built, setting) => {
    const message = new EmbedderMismatchError(built, 'something-else (8 dimensions)').message;
    expect(message).toContain('npm run ingest -- --all --reindex');
    const suggested = /set EMBEDDER=(\S+)$/.exec(message)?.[1];
    expect(suggested).toBe(setting);
    expect(formatEmbedderSpec(loadConfig({ EMBEDDER: suggested }).EMBEDDER)).toBe(setting);
  });

  it('suggests no EMBEDDER value when the index does not say which embedder built it', () => {
    const message = new EmbedderMismatchError('unknown (collection chunks has no embedder metadata)', 'use-lite-512 (512 dimensions)')
      .message;
    expect(message).not.toMatch(/set EMBEDDER/);
    expect(message).toMatch(/--reindex`$/);
  });
});
