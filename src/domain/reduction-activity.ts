import { expandSubcategories } from './subcategories.js';
import { distinct } from './enrichment.js';
import { hasLetter, oneLine, squashSpaces } from './text.js';

/**
 * `metadata.reduction_activity`: what the project does to reduce or remove emissions, as short descriptions.
 * Sources, in this order, without repeats:
 * 1. the registry's subcategory codes expanded to names (PROJECT_SUBCATERGORY_NAMES: "ARR" -> "Afforestation,
 *    Reforestation and Revegetation"), via src/domain/subcategories.ts, or an export row's activity columns;
 * 2. activities the project description states in its own fields: "Project activity type Afforestation"
 *    (VCS PD 1.3), "Type of project activity: ..." and similar labelled lines;
 * 3. activities from a fixed vocabulary that the project description names repeatedly (at least twice, so a
 *    passing mention or a methodology's list of applicability conditions does not count), most mentioned first;
 * 4. the primary category, only when nothing above gave an activity.
 */

const LABELLED = [
  /^project activity type\s*[:\-–]?\s*(.+)$/i,
  /^(?:type of (?:the )?project activity|project activity type\(s\)|activity type|type and category\(ies\)[^:]*|technology\/measure)\s*[:\-–]\s*(.+)$/i,
];

/**
 * Vocabulary of activities: each description with the phrases that name it in a document, written as the words a
 * document's text splits into (lower case; "HFC-23" and "HFC23" are the words "hfc 23", "multi-paddock" is "multi
 * paddock"; "the" is left out). "a|b" is either word: "cover crop|crops" is "cover crop" or "cover crops".
 */
const VOCABULARY: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Afforestation', ['afforestation']],
  ['Reforestation', ['reforestation']],
  ['Revegetation', ['revegetation']],
  ['Agroforestry', ['agroforestry']],
  ['Mangrove restoration', ['mangrove restoration|planting|rehabilitation']],
  ['Improved forest management', ['improved forest management']],
  ['Avoided deforestation', ['avoided deforestation', 'avoided planned|unplanned deforestation', 'reducing emissions from deforestation']],
  ['HFC-23 destruction', ['thermal oxidation of hfc 23', 'incineration|destruction|decomposition of hfc 23']],
  ['Landfill gas capture', ['landfill gas']],
  ['Biogas recovery', ['biogas']],
  ['Methane recovery', ['methane recovery|capture|avoidance|destruction']],
  ['Water management in rice cultivation', ['intermittent|intermittently flood|flooding|flooded', 'alternate wetting and drying']],
  ['Improved cookstoves', ['improved cookstove|cookstoves', 'improved cook|cooking stove|stoves']],
  ['Safe drinking water supply', ['water filter|filters|purifier|purification']],
  ['Biochar production', ['biochar']],
  ['Soil organic carbon sequestration', ['soil organic carbon']],
  ['Cover cropping', ['cover crop|crops|cropping']],
  ['Reduced tillage', ['reduced|minimum|no till|tillage']],
  ['Improved grazing management', ['rotational|managed grazing', 'adaptive multi paddock grazing']],
  ['Solar power generation', ['solar power|pv|photovoltaic', 'photovoltaic power|plant']],
  ['Wind power generation', ['wind power|farm|turbine|turbines|energy']],
  ['Hydropower generation', ['hydropower', 'hydro power|electric', 'hydroelectric']],
  ['Energy efficiency', ['energy efficiency']],
  ['Fuel switching', ['fuel switch|switching']],
  ['Wetland restoration', ['wetland restoration|rewetting', 'rewetting']],
  ['Direct air capture', ['direct air capture']],
  ['Enhanced weathering', ['enhanced weathering', 'enhanced rock weathering']],
];

const MAX_FROM_VOCABULARY = 5;
const MAX_LABEL_CHARS = 120;

/** A value with its spaces squashed, without a footnote marker glued to its end ("Afforestation2") or end punctuation. */
const clean = (value: string): string =>
  squashSpaces(value)
    .replace(/(\p{L})\d{1,2}$/u, '$1')
    .replace(/[.;:,]+$/, '')
    .trim();

/** Values of labelled activity lines ("Project activity type Afforestation") in page texts. */
export function labelledActivities(pages: readonly string[]): string[] {
  const lines = pages.flatMap((page) => page.split(/\r?\n/).map(oneLine));
  const values = lines.flatMap((line) => LABELLED.map((re) => clean(re.exec(line)?.[1] ?? '')));
  return distinct(values.filter((v) => v.length >= 3 && v.length <= MAX_LABEL_CHARS && hasLetter(v)));
}

/** The words of a text as the vocabulary's phrases are compared: lower case, letters apart from digits, no "the". */
function phraseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/(\p{L})(?=\p{N})|(\p{N})(?=\p{L})/gu, '$1$2 ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '' && w !== 'the');
}

/** Mentions of any of the phrases, read left to right without overlaps (the first phrase listed wins at a word). */
function mentions(words: readonly string[], phrases: readonly string[]): number {
  const alternatives = phrases.map((p) => p.split(' ').map((w) => w.split('|')));
  let n = 0;
  for (let i = 0; i < words.length;) {
    const hit = alternatives.find((p) => p.every((w, k) => w.includes(words[i + k] ?? '')));
    if (hit) n++;
    i += hit?.length ?? 1;
  }
  return n;
}

/** Activities of the vocabulary named at least `minMentions` times, most mentioned first. */
export function namedActivities(pages: readonly string[], minMentions = 2): string[] {
  // A word broken over a line with a hyphen ("oxi-\ndation") is one word.
  const words = phraseWords(pages.join('\n').replace(/-\s*\n\s*/g, ''));
  const counts = VOCABULARY.map(([name, phrases]) => ({ name, n: mentions(words, phrases) }));
  // A stable sort: equally mentioned activities stay in vocabulary order.
  const named = counts.filter((c) => c.n >= minMentions).sort((a, b) => b.n - a.n);
  return distinct(named.map((c) => c.name)).slice(0, MAX_FROM_VOCABULARY);
}

export function reductionActivities(input: {
  /** PROJECT_SUBCATERGORY_NAMES values. */
  subcategoryCodes: readonly string[];
  /** Activity descriptions already in words (an export row's activity columns), kept as written. */
  activityNames?: readonly string[];
  /** PRIMARY_PROJECT_CATEGORY_NAME. */
  category?: string;
  /** Pages of the project description; empty when there is none. */
  descriptionPages?: readonly string[];
}): string[] {
  const pages = input.descriptionPages ?? [];
  const found = distinct([
    ...expandSubcategories(input.subcategoryCodes),
    ...(input.activityNames ?? []),
    ...labelledActivities(pages),
    ...namedActivities(pages),
  ]);
  return found.length > 0 ? found : distinct([input.category ?? '']);
}
