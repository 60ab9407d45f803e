/**
 * Sentences of extracted PDF text: what the extractive answer picks from, and what the dense index embeds beside
 * each chunk (sentence-level evidence).
 */

/** Sentence boundaries in extracted PDF text, where line breaks are layout and not punctuation. */
export function splitSentences(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return [];
  return flat
    .split(/(?<=[.!?;])\s+(?=["'(\u201C]?[\p{Lu}\p{N}])/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Fragments (page numbers, table cells, headers) have fewer letters; the test stops at the twelfth. */
const AT_LEAST_12_LETTERS = /(?:\P{L}*\p{L}){12}/u;

export function hasTwelveLetters(s: string): boolean {
  return AT_LEAST_12_LETTERS.test(s);
}

/**
 * The sentences of a chunk that get a vector of their own beside the chunk's (VectorIndex: a chunk's dense score is
 * the mean of its own cosine and its best sentence's). A passage's answer is usually one sentence, and a sentence
 * embedder matches a question to that sentence better than to the passage that dilutes it (sentence-level evidence,
 * Yilmaz et al. 2019). Fragments of fewer than 12 letters are left out. A chunk that is one sentence gets none: its
 * own vector is that sentence's.
 */
export function evidenceSentences(chunkText: string): string[] {
  const sentences = splitSentences(chunkText);
  return sentences.length > 1 ? sentences.filter(hasTwelveLetters) : [];
}
