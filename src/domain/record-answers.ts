import { NO_COUNTRIES, type CountryLookup } from './country-lookup.js';
import { deriveCleaned } from './derive-cleaned.js';
import { parseRawRecordLeniently } from './lenient-raw-record.js';
import { attributeValues } from './raw-record.js';
import type { StoredProject } from './stored-project.js';

/**
 * What a project's registry record says to a question that asks for one of the record's own fields: "Who is the
 * project proponent?" is answered in the documents by the sentence that names the proponent the record names
 * ("Organisation Name Ecometric Ltd"), not by the many that mention "the project proponent" in passing ("The project
 * proponent must demonstrate ..."). The record does not answer (an answer cites the documents); it says which
 * sentence does, as the answer type of a question for a number says that the answer holds one
 * (domain/evidence.ts EvidencePassage.expected).
 */

/** The fields of a record that a question may ask for, as the record states them. */
export interface RecordFacts {
  /** The proponents' names ("Hexa Carbon One Private Limited"). */
  proponents: string[];
  /** Methodology codes or names ("AR-AM0004", "GHG Benefits in Managed Crop and Grassland Systems v1.5.1"). */
  methodologies: string[];
  /** Where the project is: its state or province, and its country when the record gives one. */
  places: string[];
  /** Estimated annual emission reductions or removals (tCO2e a year); 0 when the record gives none. */
  annualReductions: number;
}

/**
 * A record's facts; empty fields for a record that cannot be read (a record is never a reason for a search to fail).
 * `countries` finds the country of a record that gives only coordinates (the metadata service's lookup).
 */
export function recordFacts(stored: StoredProject, countries: CountryLookup = NO_COUNTRIES): RecordFacts {
  const facts: RecordFacts = { proponents: [], methodologies: [], places: [], annualReductions: 0 };
  try {
    const cleaned = deriveCleaned(stored, { requestedRegistry: stored.ref.registry, countries });
    const proponents = cleaned.metadata.specific_proponents ?? (cleaned.proponent !== '' ? [cleaned.proponent] : []);
    facts.proponents = proponents.filter((p) => p.trim() !== '');
    facts.methodologies = cleaned.methodology
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    const states =
      stored.format === 'registry-json' ? attributeValues(parseRawRecordLeniently(stored.raw, stored.ref), 'STATE_PROVINCE') : [];
    facts.places = [...new Set([...states, cleaned.location].map((p) => p.trim()).filter((p) => p !== ''))];
    facts.annualReductions = Number.isFinite(cleaned.reductions) && cleaned.reductions > 0 ? cleaned.reductions : 0;
  } catch {
    // An unreadable record gives no facts.
  }
  return facts;
}

/**
 * "Who is the (project) proponent / developer", "who are the project participants" (the CDM's word), "what / which
 * (company is the) proponent", "the proponent's name", "name of the proponent"; not "what must the project proponent
 * demonstrate" (a modal or an auxiliary between the question word and the role, or a verb after it, asks what the
 * proponent does).
 */
const ROLE = String.raw`(?:proponents?|developers?|participants?)`;
const MODAL = String.raw`(?:must|shall|should|may|might|can|could|would|will|need|needs|do|does|did|has|have|had)`;
const ASKS_FOR_PROPONENT = new RegExp(
  String.raw`\bwho\s+(?:is|are|was|were)\s+(?:the\s+)?(?:[\p{L}-]+\s+){0,2}${ROLE}\b` +
    String.raw`|\b(?:what|which)\s+(?:(?!${MODAL}\b)[\p{L}-]+\s+){0,4}?${ROLE}\b(?!\s+${MODAL}\b)` +
    String.raw`|\b${ROLE}(?:'s|’s)?\s+names?\b|\bnames?\s+of\s+the\s+(?:[\p{L}-]+\s+){0,2}${ROLE}`,
  'iu',
);
/** "What/which methodology (or protocol) does ... apply", "under which methodology": unless it names one itself. */
const ASKS_FOR_METHODOLOGY =
  /\b(?:what|which)\s+(?:[\p{L}-]+\s+){0,2}(?:methodolog(?:y|ies)|protocols?)\b(?!\s+(?:versions?|sections?|requires?|says?|states?))/iu;
/** A methodology's code named in the question ("VM0007", "AR-AM0004", "ACM0002", "AMS-III.D"): it asks about that one. */
const NAMES_METHODOLOGY = /\b(?:AR-)?(?:VM|VMD|VMR|AM|ACM|AMS)[-\s]?\d|\bAMS-[IVX]+/iu;
/**
 * Where the project is: "Where is the (Botany Farm) project located?", "In which state or province is the project?";
 * not "from which countries" a team comes, nor "where does a rate come from".
 */
const PLACE_KIND = String.raw`(?:countr(?:y|ies)|regions?|states?|provinces?|districts?|count(?:y|ies))`;
const ASKS_FOR_PLACE = new RegExp(
  String.raw`(?:^|[,;]\s*(?:and\s+)?)where\s+(?:is|are|was|were)\s+(?:the\s+)?(?:[\p{L}\d'\u2019-]+\s+){0,6}?(?:projects?|farms?|sites?|plantations?|activit(?:y|ies)|plant|area)\b` +
    String.raw`|\b(?:in\s+)?(?:which|what)\s+${PLACE_KIND}(?:\s+(?:or|and)\s+${PLACE_KIND})?\s+(?:is|are|was|were|lies?)\b`,
  'iu',
);
/** A question for the yearly reductions or removals: a number asked for, a year's worth of emission reductions. */
const ASKS_PER_YEAR = /\b(?:annual(?:ly)?|yearly|per\s+(?:year|annum)|a\s+year|each\s+year|every\s+year)\b/iu;
const ASKS_FOR_AMOUNT =
  /\bhow\s+(?:much|many)\b|\b(?:what|which)\s+(?:[\p{L}-]+\s+){0,3}(?:amount|volume|quantity|estimated?|expected|average|total|number)\b/iu;
const REDUCTIONS = /\b(?:reduc\w*|remov\w*|sequest\w*|abate\w*|emission\w*|credits?|tco2e?|tonnes?|VCUs?|CERs?)\b/iu;

/** A field of the record that a question may ask for. */
export type RecordField = 'proponent' | 'methodology' | 'place' | 'annualReductions';

/**
 * The fields of a record the question asks for; none for almost every question (the development set's name a
 * project's document and a fact in it). The question is read as asked, exclusion clauses included: they name other
 * projects, not fields.
 */
export function recordFieldsAsked(question: string): RecordField[] {
  const fields: RecordField[] = [];
  if (ASKS_FOR_PROPONENT.test(question)) fields.push('proponent');
  if (ASKS_FOR_METHODOLOGY.test(question) && !NAMES_METHODOLOGY.test(question)) fields.push('methodology');
  if (ASKS_FOR_PLACE.test(question)) fields.push('place');
  if (ASKS_PER_YEAR.test(question) && ASKS_FOR_AMOUNT.test(question) && REDUCTIONS.test(question)) fields.push('annualReductions');
  return fields;
}

/** What the record states for some fields: the texts an answer from its project's documents would hold. */
export function recordAnswers(fields: readonly RecordField[], facts: RecordFacts): string[] {
  const out: string[] = [];
  for (const field of fields) {
    if (field === 'proponent') out.push(...facts.proponents);
    else if (field === 'methodology') out.push(...facts.methodologies);
    else if (field === 'place') out.push(...facts.places);
    else if (facts.annualReductions > 0) out.push(String(Math.round(facts.annualReductions)));
  }
  return [...new Set(out)];
}
