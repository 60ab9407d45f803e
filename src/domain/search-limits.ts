/** Limits of a batch search, defined once for the configuration, the HTTP schema and the search service. */

/** Longest accepted question, in characters (after trimming). */
export const MAX_QUERY_CHARS = 2000;
/** Citations returned when a request gives no topK (SEARCH_DEFAULT_TOP_K). */
export const DEFAULT_TOP_K = 8;
/** Largest topK a request may ask for (SEARCH_MAX_TOP_K). */
export const DEFAULT_MAX_TOP_K = 50;
/** The highest either setting may be configured to. */
export const TOP_K_CEILING = 200;
