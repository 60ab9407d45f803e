import type { AnswerPassage } from '../domain/answer/candidates.js';
import type { Reading } from '../domain/answer/quotes.js';

export interface ReadRequest {
  question: string;
  /** The cited passages, each widened to its page window, best first. */
  passages: readonly AnswerPassage[];
  /** Texts that say where to look (the projects' names, the documents' titles), not what is asked. */
  scope: readonly string[];
}

/** What a reader found: each passage's quote (verbatim), and whether the passages answer the question. */
export interface ReadResult extends Reading {
  answered: boolean;
}

/**
 * Picks the sentences that answer a question from the cited passages: the answer path's one judgement. Adapters: the
 * extractive scorer (default), a cross-encoder behind a rerank server, an LLM. Every quote is a substring of its
 * passage, whichever reader chose it.
 */
export interface Reader {
  /** Reported in logs: `extractive`, `http:<model>`, `llm:<model>`. */
  readonly id: string;
  read(request: ReadRequest, signal?: AbortSignal): Promise<ReadResult>;
}
