import type { Logger } from '../../logger.js';
import type { Reranker } from '../../ports/reranker.js';
import type { ScoredChunk } from '../../ports/vector-index.js';
import type { ChatModel } from '../summarizers/chat-model.js';

export interface LlmRerankerOptions {
  chat: ChatModel;
  logger: Logger;
  /** Candidates shown to the model; the rest keep their fused order after them. @default 20 */
  window?: number;
  /** Characters of each candidate shown. @default 700 */
  passageChars?: number;
}

const SYSTEM = [
  'You rank passages by how directly they answer a question.',
  'Reply with the passage numbers only, most relevant first, separated by commas, e.g. "3, 1, 2".',
  'Leave out passages that do not help answer the question.',
].join(' ');

/** Passage numbers in the model's reply, in order, each once, limited to 1..count. */
export function parseRanking(reply: string, count: number): number[] {
  const out: number[] = [];
  for (const m of reply.matchAll(/\d+/g)) {
    const n = Number(m[0]);
    if (n >= 1 && n <= count && !out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * Listwise reranking by the configured chat model: it sees the top `window` candidates and returns their order.
 * Candidates it leaves out follow in fused order, so reranking never loses a passage. A failed or unparseable
 * reply keeps the fused order and is logged: reranking is an improvement, not a dependency.
 */
export function createLlmReranker(opts: LlmRerankerOptions): Reranker {
  const window = opts.window ?? 20;
  const passageChars = opts.passageChars ?? 700;
  return {
    id: `llm:${opts.chat.model}`,
    window,
    async rerank(query: string, candidates: ScoredChunk[], topK: number): Promise<ScoredChunk[]> {
      const shown = candidates.slice(0, window);
      if (shown.length <= 1) return candidates.slice(0, topK);
      const user = [
        'Passages:',
        ...shown.map((c, i) => `[${i + 1}] ${c.text.replace(/\s+/g, ' ').slice(0, passageChars)}`),
        '',
        `Question: ${query}`,
        'Ranking:',
      ].join('\n');
      let order: number[];
      try {
        const reply = await opts.chat.complete({ system: SYSTEM, user }, { maxTokens: 4 * shown.length + 16 });
        order = parseRanking(reply, shown.length);
      } catch (err) {
        opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'LLM reranking failed; fused order kept');
        return candidates.slice(0, topK);
      }
      if (order.length === 0) {
        opts.logger.warn('LLM reranking reply named no passage; fused order kept');
        return candidates.slice(0, topK);
      }
      const picked = new Set(order);
      const ranked = [
        ...order.map((n) => shown[n - 1]).filter((c): c is ScoredChunk => c !== undefined),
        ...shown.filter((_, i) => !picked.has(i + 1)),
        ...candidates.slice(window),
      ];
      return ranked.slice(0, topK);
    },
  };
}
