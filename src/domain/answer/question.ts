import { normalizedTerms, stem, withoutExclusions } from '../query.js';

/** A question as the answer path reads it, analysed once per search. */
export interface AnalysedQuestion {
  /** The question as asked. */
  text: string;
  /** Its distinct words as compared with sentences (termsOf), exclusion clauses ("not Botany Farm") dropped. */
  terms: readonly string[];
}

export function analyseQuestion(question: string): AnalysedQuestion {
  const terms = termsOf(withoutExclusions(question));
  return { text: question, terms: [...new Set([...terms, ...unitTerms(terms)])] };
}

/** What joins a compound's parts: a hyphen, a slash, or a dash between words. */
const COMPOUND = /[-/\u2010-\u2015]+/u;

/**
 * Words as compared between a question and sentences: normalised terms (domain/query.ts: lower case, stop words out,
 * light stemming, codes and numbers whole), a compound also as its parts ("HFC-23" meets "HFC 23"), and an ordinal
 * in figures as its number ("5th" meets "5").
 */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const term of normalizedTerms(text)) {
    const t = ordinal(term);
    out.push(t);
    if (COMPOUND.test(t)) for (const part of t.split(COMPOUND)) if (part !== '') out.push(ordinal(stem(part)));
  }
  return out;
}

function ordinal(term: string): string {
  return /^(\d+)(?:st|nd|rd|th)$/u.exec(term)?.[1] ?? term;
}

const TONNES_OF = /^t(co2-?e|co2)$/u;
const TONNE = stem('tonnes');

/** A tonne of a gas is tonnes of that gas: "tCO2e" in a sentence answers "how many tonnes of CO2e". */
export function unitTerms(terms: Iterable<string>): string[] {
  const out: string[] = [];
  for (const t of terms) {
    const unit = TONNES_OF.exec(t);
    if (unit?.[1]) out.push(TONNE, unit[1].replace('-', ''));
  }
  return out;
}
