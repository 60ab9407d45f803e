import type { RequestedProject } from '../../domain/project-ref.js';
import type { AnswerTuning } from '../../domain/answer/tuning.js';
import type { Logger } from '../../logger.js';
import type { DocumentStateStore } from '../../ports/document-state-store.js';
import type { DocumentTextStore } from '../../ports/document-text-store.js';
import type { Embedder } from '../../ports/embedder.js';
import type { Reader } from '../../ports/reader.js';
import type { RecordStore } from '../../ports/record-store.js';
import type { Reranker } from '../../ports/reranker.js';
import type { Summarizer } from '../../ports/summarizer.js';
import type { VectorIndex } from '../../ports/vector-index.js';

/** Which retrievers run: both fused (default), or one alone (evaluation and debugging). */
export type SearchMode = 'hybrid' | 'text' | 'vector';
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'text', 'vector'];

export interface SearchRequest {
  /** Distinct projects in request order (the HTTP layer resolved registries and rejected ambiguous ids). */
  projects: RequestedProject[];
  query: string;
  /** Citations to return. @default SearchServiceOptions.defaultTopK */
  topK?: number;
  /** @default 'hybrid' */
  mode?: SearchMode;
  signal?: AbortSignal;
  /** From SearchService.prepare; used when it is for this query (after trimming), else a new embedding is made. */
  prepared?: PreparedQuery;
  /** One answer per project as well as the overall one (CONTRACT 2, Evidence and abstention). @default false */
  perProject?: boolean;
  /** Only documents of these types (case-insensitive, matched against documentType). */
  documentTypes?: string[];
  /**
   * Write the answer with the extractive summariser even when an LLM is configured: for callers that use only the
   * citations (the MCP `search` tool), which need not wait for, or pay for, an LLM answer. @default false
   */
  extractiveAnswer?: boolean;
}

/** A question whose embedding has been started (SearchService.prepare). */
export interface PreparedQuery {
  /** The question as it will be searched (trimmed). */
  readonly query: string;
  readonly embedding: Promise<Float32Array[]>;
}

export interface Citation {
  id: number;
  projectId: number;
  registry: string;
  documentTitle: string;
  documentType: string;
  uri: string;
  page: number;
  text: string;
  /** The sentence(s) of `text` that bear on the question, verbatim (a substring of `text`). */
  quote: string;
  score: number;
  /** The page was read by OCR (CONTRACT 2, version 0.3); absent otherwise. */
  ocr?: true;
}

export interface ProjectIndexState {
  projectId: number;
  registry: string;
  indexedDocuments: number;
  /** With perProject: this project's own answer, whether it answers, and the ids of its citations. */
  answer?: string;
  answered?: boolean;
  citationIds?: number[];
}

/** CONTRACT section 2, batch search response. */
export interface SearchResponse {
  answer: string;
  /** False when the cited passages do not answer the question; `answer` then says so. */
  answered: boolean;
  citations: Citation[];
  answerModel: string;
  projects: ProjectIndexState[];
}

export interface SearchServiceOptions {
  index: VectorIndex;
  embedder: Embedder;
  /** Indexed-document counts per project (CONTRACT: `indexedDocuments`). */
  documents: DocumentStateStore;
  /**
   * Page texts of indexed documents: each citation's quote is looked for in its page around the passage (its page
   * window), and the document's running lines are never quoted. Without it, quotes come from the passages as indexed.
   */
  texts?: DocumentTextStore;
  /** When given, projects it does not hold are reported with 0 documents and not searched; their names are scope. */
  records?: RecordStore;
  /** Picks the answering sentences (ports/reader.ts). */
  reader: Reader;
  summarizer: Summarizer;
  /** Writes the answer when `summarizer` fails (an LLM timing out, an ungrounded reply). */
  fallbackSummarizer: Summarizer;
  reranker: Reranker;
  logger: Logger;
  /** @default 8 */
  defaultTopK?: number;
  /** @default 50 */
  maxTopK?: number;
  /**
   * The full-text and dense lists are fused as textWeight x minmax(BM25) + vectorWeight x minmax(cosine)
   * (domain/fusion.ts). Dense retrieval alone is far weaker than BM25 on registry documents (bench/README.md,
   * "search"), so the combination keeps BM25's margins and lets the dense score decide near-ties. @default 0.7 / 0.3
   */
  textWeight?: number;
  vectorWeight?: number;
  /**
   * Page-level ranking (domain/fusion.ts aggregateByPage): one candidate per page, scored by its best chunk plus
   * this share of its other chunks' fused scores, in [0, 1]. @default 0.2
   */
  pageBonus?: number;
  /** The answer path's constants (domain/answer/tuning.ts), any of them overridden. */
  tuning?: Partial<AnswerTuning>;
  /** Told how long each stage of a search took, in seconds (the API's metrics). */
  onStage?: (stage: 'embed' | 'retrieve' | 'answer', seconds: number) => void;
}

export interface SearchService {
  search(request: SearchRequest): Promise<SearchResponse>;
  /**
   * Starts embedding a question that a search will follow shortly, and returns it for SearchRequest.prepared: the
   * HTTP route calls it as soon as the body is parsed, so the slowest step runs while the request is validated.
   * Undefined for a question search() would refuse, and for text-only searches.
   */
  prepare?(query: string, mode?: SearchMode): PreparedQuery | undefined;
}
