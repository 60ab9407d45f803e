/**
 * Abbreviations a document defines ("global warming potential (GWP)"), found with the algorithm of Schwartz and
 * Hearst (2003, "A simple algorithm for identifying abbreviation definitions in biomedical text"), and the
 * expansion of a passage with the other form of every abbreviation it uses.
 *
 * Why: carbon-project documents define an abbreviation once and then use only it ("a GWP of 11,700", "the
 * non-permanence risk rating (NPRR)"), while a question spells it out, or the reverse. Bag-of-words retrieval cannot
 * join the two. Expanding at index time, from the document's own definitions, needs no glossary and no query-time
 * lookup: a chunk that says "GWP" is indexed with "global warming potential" in its context (never cited).
 */

export interface Abbreviation {
  /** As written in the document: `GWP`, `AFOLU`, `HFC-23`. */
  short: string;
  /** Lower-cased, whitespace collapsed: `global warming potential`. */
  long: string;
}

/** A short form: 2-10 characters, one word, starting with a letter, with at least two capitals. */
function isShortForm(s: string): boolean {
  return s.length >= 2 && s.length <= 10 && /^\p{L}[\p{L}\p{N}&./-]*$/u.test(s) && (s.match(/\p{Lu}/gu)?.length ?? 0) >= 2;
}

const isAlnum = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * Schwartz-Hearst's best long form: each character of the short form, from its end, is matched right to left in the
 * candidate; the first character must begin a word. Returns the long form (from that word on) or undefined.
 */
export function bestLongForm(short: string, candidate: string): string | undefined {
  const s = short.toLowerCase();
  const l = candidate.toLowerCase();
  let si = s.length - 1;
  let li = l.length - 1;
  for (; si >= 0; si--) {
    const c = s[si];
    if (!isAlnum(c)) continue;
    while (li >= 0 && (l[li] !== c || (si === 0 && isAlnum(l[li - 1])))) li--;
    if (li < 0) return undefined;
    li--;
  }
  const start = l.lastIndexOf(' ', li) + 1;
  return candidate.slice(start).trim();
}

/** Every "long form (SHORT)" definition in the text; the first definition of a short form wins. */
export function findAbbreviations(text: string): Abbreviation[] {
  const found = new Map<string, Abbreviation>();
  const flat = text.replace(/\s+/g, ' ');
  for (const m of flat.matchAll(/\(([^()]{2,10})\)/gu)) {
    const short = (m[1] ?? '').trim();
    if (!isShortForm(short) || found.has(short)) continue;
    // At most min(|SF| + 5, 2|SF|) words before the parenthesis, and not across a sentence or clause end.
    const maxWords = Math.min(short.length + 5, short.length * 2);
    const before = flat.slice(Math.max(0, (m.index ?? 0) - 200), m.index).split(/[.;:!?()[\]]/u).pop() ?? '';
    const words = before.trim().split(' ').filter((w) => w !== '');
    if (words.length === 0) continue;
    const candidate = words.slice(-maxWords).join(' ');
    const long = bestLongForm(short, candidate);
    if (!long) continue;
    const longWords = long.split(' ');
    // Schwartz-Hearst's checks: longer than the short form, not containing it, within the word budget; and more than
    // one word, since a one-word "long form" (a name followed by its code) is no expansion of an abbreviation.
    if (long.length <= short.length || longWords.length < 2 || longWords.length > maxWords) continue;
    if (long.toLowerCase().includes(short.toLowerCase())) continue;
    found.set(short, { short, long: long.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, '').replace(/\s+/g, ' ').trim() });
  }
  return [...found.values()];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * A function giving the other forms of the abbreviations a passage uses: the long form of a short form that appears
 * as a word (case as defined), and the short form of a long form that appears (case-insensitive). One line, each
 * form once, in the order of `abbreviations`; empty when none applies. The patterns are built once per document.
 */
export function abbreviationExpander(abbreviations: Abbreviation[]): (text: string) => string {
  const matchers = abbreviations.map((a) => ({
    ...a,
    shortPattern: new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(a.short)}(?![\\p{L}\\p{N}])`, 'u'),
  }));
  return (text) => {
    const flat = text.replace(/\s+/g, ' ');
    const lower = flat.toLowerCase();
    const out = new Set<string>();
    for (const m of matchers) {
      const hasShort = m.shortPattern.test(flat);
      const hasLong = lower.includes(m.long);
      if (hasShort && !hasLong) out.add(m.long);
      else if (hasLong && !hasShort) out.add(m.short);
    }
    return [...out].join(' ');
  };
}
