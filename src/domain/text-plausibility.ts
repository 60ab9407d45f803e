import { deflateRawSync } from 'node:zlib';
import { oneLine } from './text.js';

/**
 * Whether a document's extracted text is plausible prose to index, judged on the text alone (not on how long it took
 * to extract, which depends on the machine). A PDF bomb that inflates one drawing of a line into hundreds of
 * thousands of copies is refused here rather than chunked into a thousand identical passages that match ordinary
 * questions. The rules, and the corpus figures the thresholds leave a wide margin over: docs/security.md "PDF bombs".
 */

/** A line repeated this many times or more, making up more than MAX_REPEATED_LINE_SHARE of the text, is a bomb. */
const MIN_LINE_REPEATS = 20;
const MAX_REPEATED_LINE_SHARE = 0.5;
/** Lines shorter than this are not counted (page numbers, table cells, "0.00"). */
const MIN_COUNTED_LINE_CHARS = 8;
/**
 * Text of at least MIN_COMPRESSION_CHECK_CHARS that deflate shrinks more than MAX_COMPRESSION_RATIO times is a bomb
 * (one line drawn over and over at one place comes out as one line of copies, which the line count misses).
 */
const MIN_COMPRESSION_CHECK_CHARS = 10_000;
const MAX_COMPRESSION_RATIO = 20;

/** Why the pages' text is mostly one thing repeated, or undefined when it is not. */
export function repetitionProblem(pages: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  let total = 0;
  for (const page of pages) {
    for (const raw of page.split('\n')) {
      const line = oneLine(raw);
      total += line.length;
      if (line.length >= MIN_COUNTED_LINE_CHARS) counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  }
  if (total === 0) return undefined;
  for (const [line, n] of counts) {
    if (n >= MIN_LINE_REPEATS && (n * line.length) / total > MAX_REPEATED_LINE_SHARE) {
      const share = Math.round(((n * line.length) / total) * 100);
      return `the text is mostly one line repeated (${JSON.stringify(line.slice(0, 80))} ${n.toLocaleString('en-US')} times, ${share}% of the text)`;
    }
  }
  if (total >= MIN_COMPRESSION_CHECK_CHARS) {
    const bytes = Buffer.from(pages.join('\n'), 'utf8');
    const ratio = bytes.length / Math.max(1, deflateRawSync(bytes, { level: 1 }).length);
    if (ratio > MAX_COMPRESSION_RATIO) {
      return `the text is mostly repeated copies (it compresses ${Math.round(ratio)} times; prose compresses about 3 times)`;
    }
  }
  return undefined;
}
