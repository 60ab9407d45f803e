/** Text helpers the domain modules share, so that whitespace and letters are defined once. */

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
