import { distinctBy, oneLine } from './text.js';
/**
 * Query processing shared by retrieval and the extractive answer: the words of a question that can discriminate
 * between passages. Question scaffolding ("what", "how much", "roughly") matches everywhere and only adds noise to
 * a BM25 query; codes (VM0007, AR-AM0001) and numbers (256,109) are kept whole.
 */

const STOPWORDS = new Set(
  (
    'a about above across after again against all also am an and any are around as at be because been before being ' +
    'between both but by can could did do does doing done during each either else for from further had has have ' +
    'having he her here hers him his how i if in into is it its itself just let me more most much my no nor not of ' +
    'off on once only or other our ours out over own per please same she should so some such than that the their ' +
    'theirs them then there these they this those through to too under until up upon us very via was we were what ' +
    'whatever when where whether which while who whom whose why will with within without would yes yet you your ' +
    // question scaffolding: words a question uses to ask, not to describe what it looks for
    'approximately roughly tell describe explain give list many say says said according document documents ' +
    'mentioned stated state states named name'
  ).split(' '),
);

export function isQueryStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/**
 * A word is a whitespace-separated run trimmed of punctuation at both ends; it keeps internal punctuation only where
 * that joins letters/digits: `AR-AM0001`, `5,35,052`, `AMS-III.AU`. One pass of one expression (a run from its first
 * to its last letter or digit), as this runs over every sentence of every cited passage.
 */
const WORD = /[\p{L}\p{N}](?:\S*[\p{L}\p{N}])?/gu;

export function tokenize(text: string): string[] {
  return text.normalize('NFKC').match(WORD) ?? [];
}

/** Words that discriminate, in order, without duplicates (case-insensitive). Falls back to all words if none are left. */
export function contentWords(text: string): string[] {
  const words = tokenize(text);
  const kept = words.filter((w) => !STOPWORDS.has(w.toLowerCase()));
  const out = distinctBy(kept, (w) => w.toLowerCase());
  return out.length > 0 ? out : words;
}

/**
 * Clauses that name what the asker does NOT want: "(not Botany Farm)", "rather than the PDD", "as opposed to VM0007",
 * and the contrast inside a parenthesis that names what is wanted first ("the Wiltshire farm (Fonthill, not Botany)").
 * Their words would otherwise pull the excluded project or document up, since bag-of-words retrieval and sentence
 * embedders both ignore the negation. A parenthesis runs to its end; a bare clause to the next punctuation mark.
 */
const EXCLUSION_CLAUSE =
  /\(\s*(?:not|excluding|except|other than|rather than|as opposed to|unlike|instead of)\b[^()]*\)|\b(?:rather than|as opposed to|instead of|other than|excluding)\b[^,;:.?!()]*|,\s*not\s+[^,;:.?!()]*(?=\))/giu;

/** The question without exclusion clauses (unchanged when removing them would leave nothing). */
export function withoutExclusions(question: string): string {
  const kept = oneLine(question.replace(EXCLUSION_CLAUSE, ' '));
  return tokenize(kept).length > 0 ? kept : question;
}

/** The text given to full-text search: the content words of the question minus its exclusion clauses. */
export function textSearchQuery(question: string): string {
  return contentWords(withoutExclusions(question)).join(' ');
}

/** Letters-and-digits runs, lower-cased, with plural/possessive endings removed; codes and numbers untouched. */
export function normalizedTerms(text: string): string[] {
  const terms: string[] = [];
  for (const w of tokenize(text)) {
    const term = normalizedWord(w);
    if (term !== null) terms.push(term);
  }
  return terms;
}

function normalizedWord(w: string): string | null {
  let lower = w.toLowerCase();
  // A possessive is the word itself: "DNV's" is "DNV", "the farm's" is "farm".
  if (lower.endsWith("'s") || lower.endsWith('\u2019s')) lower = lower.slice(0, -2);
  if (STOPWORDS.has(lower)) return null;
  // Anything but letters (digits included) is a code or a number.
  return NOT_LETTER.test(lower) ? lower : stem(lower);
}

const NOT_LETTER = /[^\p{L}]/u;

/** "estimate" meets "estimated" (-> "estimat"): a final silent e is dropped from longer words. */
function trailingE(word: string): string {
  return word.length >= 5 && word.endsWith('e') ? word.slice(0, -1) : word;
}

/**
 * The carbon registries' core words, each one family whatever its form: validation and verification, the two checks
 * every project goes through ("What did the validator find?" is answered by "The validation raised three corrective
 * action requests ..."), and what a project does to carbon, removals, reductions and sequestration ("How many tonnes
 * will the project remove per year?" by "The estimated average net removals are 41,250 tCO2e per year"). Only these:
 * a derivational stemmer for every word (Porter, Lancaster) matched chance words and was measured worse
 * (bench/README.md).
 */
const WORD_FAMILIES = ['validat', 'verif', 'remov', 'reduc', 'sequest'] as const;

/**
 * Light stemming (plural and common verb endings) so "planted" meets "planting" and "emissions" meets "emission"; the
 * registries' core words by their family (WORD_FAMILIES).
 */
export function stem(word: string): string {
  for (const family of WORD_FAMILIES) if (word.startsWith(family)) return family;
  if (word.length <= 4) return word;
  if (word.endsWith('ies') && word.length > 5) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 6) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 5) return word.slice(0, -2);
  // A plural of a verbal noun is the verb: "findings" meets "find", "plantings" meets "planted".
  if (word.endsWith('ings') && word.length > 7) return word.slice(0, -4);
  if (word.endsWith('s') && !/(ss|us|is)$/u.test(word)) return trailingE(word.slice(0, -1));
  return trailingE(word);
}
