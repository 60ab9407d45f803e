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

/** What the model is told to reply when the passages do not answer; the summariser recognises it (statesNotFound). */
export const NOT_FOUND_REPLY = 'Not found in the documents.';

export const ANSWER_SYSTEM_PROMPT = [
  'You answer questions about carbon-credit projects using ONLY the numbered passages you are given.',
  'Answer in a few short, whole sentences. End every sentence with the number of the passage it comes from in square brackets, e.g. "The crediting period is 20 years [1]."',
  'Use the words of the passages and keep figures, units and codes exactly as written. Never cite a number that is not in the list. Do not use outside knowledge.',
  `If the passages do not answer the question, reply only: ${NOT_FOUND_REPLY}`,
].join(' ');

/** Characters of text kept on each side of a passage's quote, so the model sees what the quote refers to. */
const QUOTE_CONTEXT_CHARS = 160;

/**
 * What the model reads of a passage: its quote (the sentences that bear on the question, CONTRACT 2) with a little
 * text on each side, cut at word boundaries; the whole text when there is no quote or it is not found in the text.
 */
export function passageEvidence(p: Pick<CitedPassage, 'text' | 'quote'>, contextChars = QUOTE_CONTEXT_CHARS): string {
  const text = p.text.replace(/\s+/g, ' ').trim();
  const quote = p.quote?.replace(/\s+/g, ' ').trim();
  const at = quote ? text.indexOf(quote) : -1;
  if (!quote || at < 0) return text;
  let from = Math.max(0, at - contextChars);
  let to = Math.min(text.length, at + quote.length + contextChars);
  if (from > 0) {
    const space = text.indexOf(' ', from);
    from = space >= 0 && space < at ? space + 1 : at;
  }
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    to = space > at + quote.length ? space : at + quote.length;
  }
  return `${from > 0 ? '\u2026' : ''}${text.slice(from, to).trim()}${to < text.length ? '\u2026' : ''}`;
}

/**
 * The user message: passages first (each with its number, document and page, as its quote in context), the question
 * last, because small models attend most to the end of the prompt. Passages are cut to fit `maxPromptChars` in
 * relevance order.
 */
export function answerPrompt(question: string, passages: CitedPassage[], maxPromptChars: number, maxChars: number): string {
  const blocks: string[] = [];
  let budget = maxPromptChars;
  for (const p of passages) {
    const header = `[${p.id}] ${p.documentTitle}, page ${p.page}:\n`;
    const room = budget - header.length;
    if (room < 80) break;
    const text = passageEvidence(p);
    const body = text.length <= room ? text : `${text.slice(0, room)}\u2026`;
    blocks.push(header + body);
    budget -= header.length + body.length + 2;
  }
  return [
    'Passages:',
    blocks.join('\n\n'),
    '',
    `Answer the question in at most ${maxChars} characters, in short whole sentences copied from the passages, each ending with its passage number like [1]. If the passages do not answer it, reply: ${NOT_FOUND_REPLY}`,
    `Question: ${question}`,
  ].join('\n');
}
