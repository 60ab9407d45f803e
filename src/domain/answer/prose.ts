import { endsClause } from '../text.js';
/**
 * A quote as answer prose: one line, read as a person reads the page (a form's ticked options, a list's items), with
 * a sentence cut short shown so.
 */

/** Bullet glyphs of Unicode fonts, and symbol fonts' private-use glyphs. */
const BULLETS = /[\u2022\u25AA\u25CF\u25E6\u2023\u2043\uE000-\uF8FF]/gu;
/** A line break before a bullet that starts a list's next item. */
const BULLET_ITEM_BREAK = /(\S)[ \t]*\n[ \t]*[\u2022\u25AA\u25CF\u25E6\u2023\u2043\uE000-\uF8FF](?=\s)/gu;
/** A reference marker of the document's own ("[12]", "[3, 4]"): it would read as one of the answer's. */
const OWN_MARKER = /\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\]/gu;
/**
 * Text that stops where its sentence runs on: after a comma, or after a word that never ends an English sentence (an
 * article, a preposition, a conjunction, a copula).
 */
const RUNS_ON =
  /(?:,|\s(?:a|an|the|of|to|in|for|with|by|on|at|from|into|under|between|than|as|and|or|nor|but|that|which|whose|where|is|are|was|were|be|been|its|their|this|these))$/u;
/** A list item's letter or numeral: "a) ...", "(iv) ..." starts an item, not a cut sentence. */
const LIST_LETTER = /^\(?(?:[a-z]|[ivx]{1,4})\)\s/u;

export function asProse(text: string): string {
  const prose = checkedOptions(text)
    .replace(BULLET_ITEM_BREAK, (_all: string, before: string) => (endsClause(before) ? `${before} ` : `${before}; `))
    .replace(BULLETS, ' ')
    .replace(OWN_MARKER, '')
    .replace(/\s+/gu, ' ')
    .replace(/^[\s\-\u2013\u2014*>]+/u, '')
    .trim();
  const cutBefore = /^\p{Ll}/u.test(prose) && !LIST_LETTER.test(prose);
  const cutAfter = RUNS_ON.test(prose);
  return `${cutBefore ? '\u2026' : ''}${cutAfter ? prose.replace(/[\s,]+$/u, '') : prose}${cutAfter ? '\u2026' : ''}`;
}

/**
 * `Text ends here.` -> `Text ends here [3].`: the marker sits inside the sentence it supports; several passages that
 * state it are cited in a run (`[2][5]`).
 */
export function withMarker(sentence: string, ids: number | readonly number[]): string {
  const m = /^(.*?)([.!?;:\u2026]*)$/su.exec(sentence.trimEnd());
  const body = (m?.[1] ?? sentence).replace(/[\s,]+$/u, '');
  const end = m?.[2] ?? '';
  const markers = (typeof ids === 'number' ? [ids] : [...new Set(ids)].sort((a, b) => a - b)).map((n) => `[${n}]`).join('');
  if (end.includes('\u2026') || end.endsWith(':')) return `${body}\u2026 ${markers}.`;
  return `${body} ${markers}${end === '' || end === ';' ? '.' : end}`;
}

const UNCHECKED = '\u2610';
const CHECKBOX = /[\u2610\u2611\u2612]/gu;

/**
 * A form's checkboxes read as the options ticked: "Crediting period ☐ Seven years ☒ Ten years, fixed" -> "Crediting
 * period: Ten years, fixed". An option runs from its box to the next box or the end of its line; options with only
 * spaces between them are one field. A field with no box ticked is left as it is (the form was not filled in).
 */
export function checkedOptions(text: string): string {
  const boxes = [...text.matchAll(CHECKBOX)].map((m) => m.index);
  if (boxes.length === 0) return text;
  const options = boxes.map((at, i) => {
    const line = text.indexOf('\n', at);
    const end = Math.min(boxes[i + 1] ?? text.length, line < 0 ? text.length : line);
    return { at, end, ticked: text[at] !== UNCHECKED, label: text.slice(at + 1, end).trim() };
  });
  let out = '';
  let from = 0;
  for (let i = 0; i < options.length;) {
    let j = i + 1;
    while (j < options.length && text.slice(options[j - 1]?.end ?? 0, options[j]?.at ?? 0).trim() === '') j++;
    const field = options.slice(i, j);
    const first = field[0];
    const last = field[field.length - 1];
    if (first && last && field.some((o) => o.ticked)) {
      const before = text.slice(from, first.at).trimEnd();
      const ticked = field.filter((o) => o.ticked && o.label !== '').map((o) => o.label);
      const ends = text[last.end] === '\n' && /^\s*\p{Lu}/u.test(text.slice(last.end)) && !endsClause(ticked.at(-1) ?? '');
      out += `${before}${/[\p{L}\p{N})?]$/u.test(before) ? (before.endsWith('?') ? '' : ':') : ''} ${ticked.join(', ')}${ends ? '.' : ''}`;
      from = last.end;
    }
    i = j;
  }
  return out + text.slice(from);
}
