import { normalizedTerms } from '../query.js';
import { candidatesOf, type AnswerPassage, type LineTuning } from './candidates.js';
import { asProse, withMarker } from './prose.js';
import type { Quote } from './quotes.js';
import type { AnswerTuning } from './tuning.js';
import { figuresIn } from '../text.js';

export interface ComposeOptions {
  /** The answer's budget in characters: the best piece is always given, further ones while they fit. */
  maxChars: number;
  tuning: Pick<AnswerTuning, 'pieceShare' | 'repeatShare'>;
}

interface Piece {
  prose: string;
  terms: Set<string>;
  figures: string;
  ids: number[];
  project: string | undefined;
}

/**
 * The extractive answer: the quotes best first, each as prose followed by its passage's marker, while they score at
 * least `pieceShare` of the best and fit the budget; in an answer over several projects each piece is introduced by
 * its project. A quote that repeats a kept piece (most of its words, and no other figures) is not said twice: its
 * passage is cited beside the piece. A quote too long for the room left is stated by its first sentence when that
 * fits. Empty when there is no quote.
 */
export function composeAnswer(quotes: readonly Quote[], passages: readonly AnswerPassage[], opts: ComposeOptions): string {
  const ranked = [...quotes].sort((a, b) => b.score - a.score || a.passageId - b.passageId);
  const best = ranked[0];
  if (!best) return '';
  const projectOf = new Map(passages.map((p) => [p.id, p.project]));
  const severalProjects = new Set(passages.map((p) => p.project ?? '')).size > 1;
  const chosen: Piece[] = [];
  let used = 0;
  for (const quote of ranked) {
    if (chosen.length > 0 && (quote.coverage === 0 || quote.score < opts.tuning.pieceShare * best.score)) break;
    const project = severalProjects ? projectOf.get(quote.passageId) : undefined;
    for (const text of quote.core ? [quote.text, quote.core] : [quote.text]) {
      const prose = asProse(text);
      if (prose === '') continue;
      const piece: Piece = { prose, terms: new Set(normalizedTerms(prose)), figures: figuresOf(prose), ids: [quote.passageId], project };
      const repeated = chosen.find((c) => repeats(piece, c, opts.tuning.repeatShare));
      if (repeated) {
        if (!repeated.ids.includes(quote.passageId)) repeated.ids.push(quote.passageId);
        break;
      }
      const length = render(piece).length + 1;
      if (chosen.length > 0 && used + length > opts.maxChars) continue;
      chosen.push(piece);
      used += length;
      break;
    }
  }
  return chosen.map(render).join(' ');
}

function render(p: Piece): string {
  return withMarker(p.project ? `${p.project}: ${p.prose}` : p.prose, p.ids);
}

/** A piece repeats a kept one when one holds the other, or most words are shared and no other figure is given. */
function repeats(p: Piece, kept: Piece, share: number): boolean {
  if (p.project !== kept.project) return false;
  if (p.prose.includes(kept.prose) || kept.prose.includes(p.prose)) return true;
  let shared = 0;
  for (const t of p.terms) if (kept.terms.has(t)) shared++;
  return shared / Math.max(1, Math.min(p.terms.size, kept.terms.size)) >= share && (p.figures === '' || p.figures === kept.figures);
}

/** The figures a text gives, thousands separators dropped, each once, as one sorted string. */
function figuresOf(text: string): string {
  const figures = figuresIn(text).map((d) => d.replace(/,/gu, ''));
  return [...new Set(figures)].sort().join(' ');
}

/**
 * An overview of passages already about the subject (a project description's summary section): their leading
 * readable sentences in order, within the budget, each passage's run followed by its marker. The lead of such a text
 * is its best summary; matching the words of a "summarise" instruction would pick at random.
 */
export function leadSummary(passages: readonly AnswerPassage[], maxChars: number, tuning: LineTuning): string {
  const parts: string[] = [];
  let used = 0;
  for (const p of passages) {
    const run: string[] = [];
    for (const c of candidatesOf(p, tuning)) {
      const prose = asProse(c.text);
      if (used + prose.length + 6 > maxChars && (parts.length > 0 || run.length > 0)) break;
      run.push(prose);
      used += prose.length + 1;
    }
    const last = run.pop();
    if (last !== undefined) parts.push([...run, withMarker(last, p.id)].join(' '));
    if (used >= maxChars * 0.9) break;
  }
  return parts.join(' ');
}
