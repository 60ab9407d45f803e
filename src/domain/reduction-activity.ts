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
  /^(?:type of (?:the )?project activity|project activity type\(s\)|activity type)\s*[:\-–]\s*(.+)$/i,
  /^(?:type and category\(ies\)[^:]*|technology\/measure)\s*[:\-–]\s*(.+)$/i,
];

/**
 * Vocabulary of activities: each description with the phrases that name it in a document, written as the words a
 * document's text splits into (lower case; "HFC-23" and "HFC23" are the words "hfc 23", "multi-paddock" is "multi
 * paddock"; "the" is left out).
 */
const VOCABULARY: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Afforestation', ['afforestation']],
  ['Reforestation', ['reforestation']],
  ['Revegetation', ['revegetation']],
  ['Agroforestry', ['agroforestry']],
  ['Mangrove restoration', ['mangrove restoration', 'mangrove planting', 'mangrove rehabilitation']],
  ['Improved forest management', ['improved forest management']],
  [
    'Avoided deforestation',
    ['avoided deforestation', 'avoided planned deforestation', 'avoided unplanned deforestation', 'reducing emissions from deforestation'],
  ],
  ['HFC-23 destruction', ['thermal oxidation of hfc 23', 'incineration of hfc 23', 'destruction of hfc 23', 'decomposition of hfc 23']],
  ['Landfill gas capture', ['landfill gas']],
  ['Biogas recovery', ['biogas']],
  ['Methane recovery', ['methane recovery', 'methane capture', 'methane avoidance', 'methane destruction']],
  [
    'Water management in rice cultivation',
    [
      'intermittent flood',
      'intermittent flooding',
      'intermittent flooded',
      'intermittently flood',
      'intermittently flooding',
      'intermittently flooded',
      'alternate wetting and drying',
    ],
  ],
  [
    'Improved cookstoves',
    [
      'improved cookstove',
      'improved cookstoves',
      'improved cook stove',
      'improved cook stoves',
      'improved cooking stove',
      'improved cooking stoves',
    ],
  ],
  ['Safe drinking water supply', ['water filter', 'water filters', 'water purifier', 'water purification']],
  ['Biochar production', ['biochar']],
  ['Soil organic carbon sequestration', ['soil organic carbon']],
  ['Cover cropping', ['cover crop', 'cover crops', 'cover cropping']],
  ['Reduced tillage', ['reduced till', 'reduced tillage', 'minimum till', 'minimum tillage', 'no till', 'no tillage']],
  ['Improved grazing management', ['rotational grazing', 'managed grazing', 'adaptive multi paddock grazing']],
  ['Solar power generation', ['solar power', 'solar pv', 'solar photovoltaic', 'photovoltaic power', 'photovoltaic plant']],
  ['Wind power generation', ['wind power', 'wind farm', 'wind turbine', 'wind turbines', 'wind energy']],
  ['Hydropower generation', ['hydropower', 'hydro power', 'hydroelectric', 'hydro electric']],
  ['Energy efficiency', ['energy efficiency']],
  ['Fuel switching', ['fuel switch', 'fuel switching']],
  ['Wetland restoration', ['wetland restoration', 'wetland rewetting', 'rewetting']],
  ['Direct air capture', ['direct air capture']],
  ['Enhanced weathering', ['enhanced weathering', 'enhanced rock weathering']],
];

const MAX_FROM_VOCABULARY = 5;
const MAX_LABEL_CHARS = 120;

function clean(value: string): string {
  return (
    squashSpaces(value)
      // Footnote markers glued to the end of a value ("Afforestation2").
      .replace(/(\p{L})\d{1,2}$/u, '$1')
      .replace(/[.;:,]+$/, '')
      .trim()
  );
}

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
function mentions(words: readonly string[], phrases: readonly (readonly string[])[]): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) {
    const hit = phrases.find((p) => p.every((w, k) => words[i + k] === w));
    if (hit) {
      n++;
      i += hit.length - 1;
    }
  }
  return n;
}

/** Activities of the vocabulary named at least `minMentions` times, most mentioned first. */
export function namedActivities(pages: readonly string[], minMentions = 2): string[] {
  // A word broken over a line with a hyphen ("oxi-\ndation") is one word.
  const words = phraseWords(pages.join('\n').replace(/-\s*\n\s*/g, ''));
  const counts = VOCABULARY.map(([name, phrases]) => ({ name, n: mentions(words, phrases.map(phraseWords)) }));
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
