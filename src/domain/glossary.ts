/**
 * Acronyms of the carbon-credit field and their long forms. Registry documents use either ("the GWP of HFC-23",
 * "global warming potential"), questions too; BM25 matches words, not meanings, so the full-text query gets the
 * other form added (domain/query.ts textSearchQuery). Standard terms of the field only (CDM, VCS and IPCC glossaries),
 * not words of any one document. Left out on purpose: acronyms with a second meaning here (CAR is also the Climate
 * Action Reserve, ERR a spreadsheet type) and those whose long form is mostly generic words (CDM: "development").
 */
const GLOSSARY: readonly (readonly [string, string])[] = [
  ['AFOLU', 'agriculture forestry and other land use'],
  ['ARR', 'afforestation reforestation and revegetation'],
  ['BAU', 'business as usual'],
  ['CER', 'certified emission reduction'],
  ['CL', 'clarification request'],
  ['DOE', 'designated operational entity'],
  ['FAR', 'forward action request'],
  ['GHG', 'greenhouse gas'],
  ['GWP', 'global warming potential'],
  ['IFM', 'improved forest management'],
  ['LULUCF', 'land use land use change and forestry'],
  ['MRV', 'measurement reporting and verification'],
  ['PDD', 'project design document'],
  ['REDD', 'reducing emissions from deforestation and forest degradation'],
  ['SOC', 'soil organic carbon'],
  ['VCU', 'verified carbon unit'],
  ['VVB', 'validation verification body'],
];

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Whether `seq` occurs as consecutive words in `haystack` (both lower-cased word lists). */
function containsSequence(haystack: readonly string[], seq: readonly string[]): boolean {
  outer: for (let i = 0; i + seq.length <= haystack.length; i++) {
    for (let j = 0; j < seq.length; j++) if (haystack[i + j] !== seq[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * The other forms of the acronyms and long forms a question uses: "global warming potential" gives `GWP`, "PDD"
 * gives `project design document`. An acronym counts only written in capitals ("CAR", not "car"); a long form
 * matches in any case, with plural endings ("clarification requests"). Returns the additions only, in glossary order.
 */
export function glossaryExpansions(question: string): string[] {
  const lower = words(question);
  // Plurals of the long forms' last words: "requests" meets "request", "reductions" meets "reduction".
  const singular = lower.map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  const capitals = new Set(question.match(/\b[A-Z][A-Z0-9]*[A-Z](?:s\b)?/g)?.map((w) => w.replace(/s$/, '')) ?? []);
  const out: string[] = [];
  for (const [acronym, long] of GLOSSARY) {
    const longWords = words(long);
    const hasLong = containsSequence(lower, longWords) || containsSequence(singular, longWords);
    const hasAcronym = capitals.has(acronym);
    if (hasLong && !hasAcronym) out.push(acronym);
    else if (hasAcronym && !hasLong) out.push(long);
  }
  return out;
}
