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
 * Vocabulary of activities: a pattern over the document text (a regular expression source, matched case-insensitively
 * everywhere in the text) and the description it stands for.
 */
const VOCABULARY: ReadonlyArray<readonly [RegExp, string]> = (
  [
    [String.raw`\bafforestation\b`, 'Afforestation'],
    [String.raw`\breforestation\b`, 'Reforestation'],
    [String.raw`\brevegetation\b`, 'Revegetation'],
    [String.raw`\bagroforestry\b`, 'Agroforestry'],
    [String.raw`\bmangrove (?:restoration|planting|rehabilitation)\b`, 'Mangrove restoration'],
    [String.raw`\bimproved forest management\b`, 'Improved forest management'],
    [String.raw`\b(?:avoided (?:planned |unplanned )?deforestation|reducing emissions from deforestation)\b`, 'Avoided deforestation'],
    [String.raw`\b(?:thermal oxidation|incineration|destruction|decomposition) of (?:the )?hfc[- ]?23\b`, 'HFC-23 destruction'],
    [String.raw`\blandfill gas\b`, 'Landfill gas capture'],
    [String.raw`\bbiogas\b`, 'Biogas recovery'],
    [String.raw`\bmethane (?:recovery|capture|avoidance|destruction)\b`, 'Methane recovery'],
    [String.raw`\b(?:intermittent(?:ly)? flood(?:ing|ed)?|alternate wetting and drying)\b`, 'Water management in rice cultivation'],
    [String.raw`\bimproved (?:cook ?stoves?|cooking stoves?)\b`, 'Improved cookstoves'],
    [String.raw`\b(?:water filters?|water purifi(?:er|cation))\b`, 'Safe drinking water supply'],
    [String.raw`\bbiochar\b`, 'Biochar production'],
    [String.raw`\bsoil organic carbon\b`, 'Soil organic carbon sequestration'],
    [String.raw`\b(?:cover crop(?:s|ping)?)\b`, 'Cover cropping'],
    [String.raw`\b(?:reduced|minimum|no)[- ]till(?:age)?\b`, 'Reduced tillage'],
    [String.raw`\b(?:rotational|managed|adaptive multi-paddock) grazing\b`, 'Improved grazing management'],
    [String.raw`\b(?:solar (?:power|pv|photovoltaic)|photovoltaic (?:power|plant))\b`, 'Solar power generation'],
    [String.raw`\bwind (?:power|farm|turbines?|energy)\b`, 'Wind power generation'],
    [String.raw`\bhydro ?(?:power|electric)\b`, 'Hydropower generation'],
    [String.raw`\benergy efficiency\b`, 'Energy efficiency'],
    [String.raw`\bfuel switch(?:ing)?\b`, 'Fuel switching'],
    [String.raw`\bwetland (?:restoration|rewetting)|\brewetting\b`, 'Wetland restoration'],
    [String.raw`\bdirect air capture\b`, 'Direct air capture'],
    [String.raw`\benhanced (?:rock )?weathering\b`, 'Enhanced weathering'],
  ] as const
).map(([source, name]) => [new RegExp(source, 'gi'), name] as const);

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
  const out: string[] = [];
  for (const page of pages) {
    for (const line of page.split(/\r?\n/)) {
      const l = oneLine(line);
      for (const re of LABELLED) {
        const m = re.exec(l);
        const value = m?.[1] ? clean(m[1]) : '';
        if (value.length >= 3 && value.length <= MAX_LABEL_CHARS && hasLetter(value)) out.push(value);
      }
    }
  }
  return distinct(out);
}

/** Activities of the vocabulary named at least `minMentions` times, most mentioned first. */
export function namedActivities(pages: readonly string[], minMentions = 2): string[] {
  const text = squashSpaces(pages.join('\n').replace(/-\s*\n\s*/g, ''));
  const counts: { name: string; n: number; order: number }[] = [];
  VOCABULARY.forEach(([re, name], order) => {
    const n = text.match(re)?.length ?? 0;
    if (n >= minMentions) counts.push({ name, n, order });
  });
  counts.sort((a, b) => b.n - a.n || a.order - b.order);
  return distinct(counts.map((c) => c.name)).slice(0, MAX_FROM_VOCABULARY);
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
  if (found.length > 0) return found;
  return distinct([input.category ?? '']);
}
