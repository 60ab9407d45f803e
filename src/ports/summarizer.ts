/** A passage the summariser may cite; `id` is the marker number ([1], [2], ...). */
export interface CitedPassage {
  id: number;
  text: string;
  /** The sentence(s) of `text` that bear on the question, verbatim (CONTRACT 2, Evidence and abstention); absent when none was found. */
  quote?: string;
  /**
   * How the search weighed `quote` against the question (domain/answer/quotes.ts Quote): `coverage`, the share of the
   * question's word weight it holds, and `score`, its ranking score among the quotes. An extractive answer takes the
   * quotes whole in this order rather than choosing sentences again.
   */
  quoteWeight?: { coverage: number; score: number };
  /**
   * The best sentence of `quote` alone (or a list's lead-in and first line), when `quote` runs on past it
   * (domain/answer/quotes.ts Quote.core).
   */
  quoteCore?: string;
  /** Retrieval relevance in [0, 1]: passages come best first, and this tells by how much. */
  score?: number;
  /** The passage's project ("Verra 5533"), given when the passages come from several projects. */
  project?: string;
  documentTitle: string;
  page: number;
}

export interface SummarizeInput {
  /** The user's question; for a project summary, an instruction such as "Summarise the project". */
  question: string;
  passages: CitedPassage[];
  /** Soft budget for the answer length in characters. @default 600 */
  maxChars?: number;
  /**
   * `answer` (default): answer the question from the passages. `summary`: an overview of the passages (a project
   * summary); the extractive summariser then takes their leading sentences rather than those matching the question.
   */
  purpose?: 'answer' | 'summary';
  /**
   * The question asks every project for the same fact (a field its registry record states: "Who is the project
   * proponent?"): an answer over several projects gives each project's best quote before any project's second.
   * Summarisers that write their own prose may ignore it.
   */
  eachProject?: boolean;
}

/**
 * Writes an answer from passages. Every adapter returns prose with [n] markers referring to passage ids;
 * callers validate markers afterwards (domain/markers.ts).
 */
export interface Summarizer {
  /** Reported as `answerModel`: the LLM's model name, or `extractive`. */
  readonly model: string;
  summarize(input: SummarizeInput, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}
