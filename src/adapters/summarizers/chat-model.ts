import type { CitedPassage } from '../../ports/summarizer.js';

/**
 * A chat-completion model as the summariser and the LLM reranker use it: a system and a user message in, text out.
 * Implemented by the OpenAI-compatible client (openai.ts) and the in-process GGUF model (llama.ts), so one
 * configured LLM serves both.
 */
export interface ChatModel {
  /** The model's name, reported as `answerModel`. */
  readonly model: string;
  /** Characters of passage text the model's context can take in one prompt (prompt scaffolding excluded). */
  readonly maxPromptChars: number;
  complete(messages: { system: string; user: string }, opts: { maxTokens: number; signal?: AbortSignal }): Promise<string>;
  close(): Promise<void>;
}

export const ANSWER_SYSTEM_PROMPT = [
  'You answer questions about carbon-credit projects using ONLY the numbered passages you are given.',
  'Cite the passage that supports each statement with its number in square brackets, e.g. [1] or [2][3], right after the statement.',
  'Never cite a number that is not in the list. Do not use outside knowledge.',
  'If the passages do not answer the question, say that the documents do not say, in one sentence.',
  'Be concise and factual; keep figures, units and codes exactly as written in the passages.',
].join(' ');

/**
 * The user message: passages first (each with its number, document and page), the question last, because small
 * models attend most to the end of the prompt. Passages are cut to fit `maxPromptChars` in relevance order.
 */
export function answerPrompt(question: string, passages: CitedPassage[], maxPromptChars: number, maxChars: number): string {
  const blocks: string[] = [];
  let budget = maxPromptChars;
  for (const p of passages) {
    const header = `[${p.id}] ${p.documentTitle}, page ${p.page}:\n`;
    const room = budget - header.length;
    if (room < 80) break;
    const text = p.text.replace(/\s+/g, ' ').trim();
    const body = text.length <= room ? text : `${text.slice(0, room)}\u2026`;
    blocks.push(header + body);
    budget -= header.length + body.length + 2;
  }
  return [
    'Passages:',
    blocks.join('\n\n'),
    '',
    `Question: ${question}`,
    `Answer in at most ${maxChars} characters, citing passages as [n].`,
  ].join('\n');
}
