/**
 * The unit a question asks its answer in, and whether a text gives a figure in it: "How tall is the stack, in
 * metres?" is answered by "a stack of 30 m", not by "the gases leave through an exhaust stack"; "How many CERs have
 * been issued?" by "12,345 CERs", not by the verification's dates. The answer type of factoid question answering,
 * for the quantities a carbon project's documents measure (lengths, areas, volumes, masses, money, energy,
 * temperatures, shares, credits, and the environmental assessment's sound levels and concentrations), as a lexicon of
 * units and their written forms, not of the corpus's phrases.
 */

export interface Unit {
  /** Its name, as an answer that lacks it says ("no cited page gives a figure in metres"). */
  name: string;
  /** How a question names it (after "in", "how many", or before "per"). */
  asked: RegExp;
  /** A figure in it, as documents write it. */
  figure: RegExp;
}

/** A figure: digits, with separators and decimals ("5,35,052", "219.8", "256 109"). */
const N = String.raw`\d(?:[\d,.\u00a0\u202f ]*\d)?`;
/** Not followed by a letter or digit (`\b` fails after a symbol such as "%" or "€"). */
const END = String.raw`(?![\p{L}\d])`;
/**
 * Characters that may stand between a bracketed unit and the first figure it heads: a table's other column headings
 * and the first row's label ("Total area (ha) / P. massoniana + Quercus sp. 6:4 100 800 900").
 */
const HEADING_GAP = 80;

/**
 * A unit: how questions name it, how documents write it after a figure ("30 m", "2,000 ha"), and the signs written
 * before a figure (money: "Rs. 45,000", "US$ 5"). A figure is also in the unit when a table's heading or a label gives
 * the unit in brackets or before a colon: "(tonnes of CO2 e) 25,795", "Area (ha): 219.8", "Height in m: 30", and a
 * column heading over the first row ("Total area (ha) / Eucalyptus sp. 850 150 1,000").
 */
function unit(name: string, asked: string, written: string, before?: string): Unit {
  const figure = [
    String.raw`${N}\s*(?:${written})${END}`,
    String.raw`\((?:[^()\d]{0,30}[\s(])?(?:${written})${END}[^()]{0,20}\)[^()\d]{0,${HEADING_GAP}}${N}`,
    String.raw`(?:^|[\s(])(?:${written})\s*[:=]\s*${N}`,
    ...(before ? [String.raw`(?:${before})\s*${N}`] : []),
  ].join('|');
  return { name, asked: askedAs(asked), figure: new RegExp(figure, 'iu') };
}

/** Where a question names the unit of its answer: "in metres", "as a percentage", "how many hectares", "tonnes per hectare". */
function askedAs(asked: string): RegExp {
  return new RegExp(
    String.raw`\b(?:in|as|into)\s+(?:an?\s+|the\s+)?(?:${asked})${END}|\bhow\s+(?:many|much)\s+(?:${asked})${END}|(?:^|[^\p{L}])(?:${asked})\s+per\s+\p{L}`,
    'iu',
  );
}

const TONNES = String.raw`tonnes?|tons?|t|Mt|kt|Gg`;
const CO2 = String.raw`(?:\s*(?:of\s+)?CO2[-\s]?e(?:q(?:uivalent)?)?|\s*(?:of\s+)?CO2)?`;

/**
 * The units a question may ask for. A compound unit ("tonnes per hectare") comes before its parts, so that it is the
 * one asked; "square metres" and "metres" do not read each other's figures ("10 m2" is no height).
 */
const UNITS: readonly Unit[] = [
  unit(
    'tonnes per hectare',
    String.raw`(?:tonnes?|tons?|t)\s*(?:per|/)\s*(?:hectares?|ha)`,
    String.raw`(?:tonnes?|tons?|t)\s*(?:C|CO2e?|CO2-e|dm)?\s*(?:per\s+|/\s*)(?:hectares?|ha)|t\s*(?:C\s*)?ha-1`,
  ),
  unit('percent', String.raw`percent(?:age)?|per\s?cent|%`, String.raw`%|per\s?cent|percent`),
  unit('hectares', String.raw`hectares?|ha`, String.raw`ha|hectares?`),
  unit('acres', String.raw`acres?`, String.raw`acres?`),
  unit('square metres', String.raw`square\s+met(?:re|er)s?|m2`, String.raw`m2|sq\.?\s*m|square\s+met(?:re|er)s?`),
  unit('kilometres', String.raw`kilomet(?:re|er)s?|km`, String.raw`km|kilomet(?:re|er)s?`),
  unit('centimetres', String.raw`centimet(?:re|er)s?|cm`, String.raw`cm|centimet(?:re|er)s?`),
  unit('millimetres', String.raw`millimet(?:re|er)s?|mm`, String.raw`mm|millimet(?:re|er)s?`),
  unit(
    'milligrams per cubic metre',
    String.raw`mg\s*/\s*N?m3|milligrams?\s+per\s+(?:normal\s+)?cubic\s+met(?:re|er)`,
    String.raw`mg\s*/\s*N?m3|mg\s*N?m-3|milligrams?\s+per\s+(?:normal\s+)?cubic\s+met(?:re|er)`,
  ),
  unit('cubic metres', String.raw`cubic\s+met(?:re|er)s?|m3`, String.raw`m3|cu\.?\s*m|cubic\s+met(?:re|er)s?`),
  unit('metres', String.raw`met(?:re|er)s?`, String.raw`m|met(?:re|er)s?`),
  unit('litres', String.raw`lit(?:re|er)s?`, String.raw`lit(?:re|er)s?|L`),
  unit('decibels', String.raw`decibels?|dB(?:\s*\(?A\)?)?`, String.raw`dB(?:\s*\(?A\)?)?|decibels?`),
  unit('parts per million', String.raw`ppm|parts\s+per\s+million`, String.raw`ppm|parts\s+per\s+million`),
  unit('tonnes', String.raw`tonnes?|tons?|tCO2e?|t\s*CO2e?`, String.raw`(?:${TONNES})${CO2}|t\s*CO2[-\s]?e?`),
  unit('kilograms', String.raw`kilograms?|kg`, String.raw`kg|kilograms?`),
  unit('rupees', String.raw`(?:indian\s+)?rupees?|INR|Rs\.?`, String.raw`rupees?|INR|crores?|lakhs?|lacs?`, String.raw`Rs\.?|INR|₹`),
  unit('dollars', String.raw`(?:US\s+)?dollars?|USD|US\$`, String.raw`USD|dollars?`, String.raw`US\s*\$|USD|\$`),
  unit('euros', String.raw`euros?|EUR|€`, String.raw`€|EUR|euros?`, String.raw`€|EUR`),
  unit('pounds', String.raw`pounds(?:\s+sterling)?|GBP|£`, String.raw`GBP|pounds`, String.raw`£|GBP`),
  unit('watt-hours', String.raw`[kMG]Wh|(?:kilo|mega|giga)watt[-\s]hours?`, String.raw`[kMG]Wh|(?:kilo|mega|giga)watt[-\s]hours?`),
  unit('watts', String.raw`[kMG]W|(?:kilo|mega|giga)watts?`, String.raw`[kMG]W|(?:kilo|mega|giga)watts?`),
  unit('degrees', String.raw`degrees(?:\s+(?:Celsius|centigrade))?|°C|Celsius`, String.raw`(?:°|º|0)\s*C|degrees?`),
  unit(
    'credits',
    String.raw`t?CERs?|VCUs?|credits?|certified\s+emission\s+reductions?|verified\s+carbon\s+units?`,
    String.raw`t?CERs?|VCUs?|credits?|certified\s+emission\s+reductions?|verified\s+carbon\s+units?`,
  ),
];

const PERCENT = UNITS.find((u) => u.name === 'percent') as Unit;
/** "What percentage ...": a share is asked even without "in". */
const WHAT_SHARE = /\bwhat\s+(?:percent(?:age)?|per\s?cent)\b/iu;

/** The unit a question asks its answer in, or null when it names none. */
export function askedUnit(question: string): Unit | null {
  const q = question.normalize('NFKC');
  for (const u of UNITS) if (u.asked.test(q)) return u;
  return WHAT_SHARE.test(q) ? PERCENT : null;
}

/** Whether a text gives a figure in a unit (compatibility forms read as their plain ones: "tCO₂e", "m²"). */
export function holdsFigureIn(u: Unit, text: string): boolean {
  return u.figure.test(text.normalize('NFKC'));
}
