/** Text helpers the domain modules share, so that whitespace, letters and repeats are defined once. */

/** Runs of whitespace (line breaks included) as one space; the ends kept. */
export function squashSpaces(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Runs of whitespace (line breaks included) as one space, the ends trimmed. */
export function oneLine(text: string): string {
  return squashSpaces(text).trim();
}

/** Whether the text holds a letter of any script. */
export function hasLetter(text: string): boolean {
  return /\p{L}/u.test(text);
}

/** How many letters, of any script, the text holds. */
export function countLetters(text: string): number {
  return text.match(/\p{L}/gu)?.length ?? 0;
}

/** How many digits or other numerals, of any script, the text holds. */
export function countDigits(text: string): number {
  return text.match(/\p{N}/gu)?.length ?? 0;
}

/** Whether the text holds a decimal digit. */
export function hasDigit(text: string): boolean {
  return /\d/.test(text);
}

/** Whether the text ends with a sentence's or a clause's punctuation (. ! ? ; : or a comma). */
export function endsClause(text: string): boolean {
  return /[.!?;:,]$/.test(text);
}

/** Runs of letters and digits, as written. */
export function wordRuns(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The figures a text gives as written ("27,769", "12.5"), trailing separators dropped, in order. */
export function figuresIn(text: string): string[] {
  return (text.match(/\d[\d,.]*/gu) ?? []).map((f) => f.replace(/[,.]+$/u, ''));
}

/** The first item of each key, in order. */
export function distinctBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
