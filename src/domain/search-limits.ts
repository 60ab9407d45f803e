/** Limits of a batch search, defined once for the configuration, the HTTP schema and the search service. */

/** Longest accepted question, in characters (after trimming). */
export const MAX_QUERY_CHARS = 2000;
/**
 * A letter or digit: a question holds one. Punctuation alone ("???") gives full-text search nothing and dense search
 * noise. The HTTP validator and the search service test it, and the OpenAPI document states it as a pattern.
 */
export const A_WORD = /[\p{L}\p{N}]/u;
/** Citations returned when a request gives no topK (SEARCH_DEFAULT_TOP_K). */
export const DEFAULT_TOP_K = 8;
/** Largest topK a request may ask for (SEARCH_MAX_TOP_K). */
export const DEFAULT_MAX_TOP_K = 50;
/** The highest either setting may be configured to. */
export const TOP_K_CEILING = 200;
