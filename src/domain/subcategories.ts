import { distinct } from './enrichment.js';

/**
 * Names of the short codes Verra puts in PROJECT_SUBCATERGORY_NAMES (spelled so by the registry): the AFOLU
 * project categories and their activity types (VCS Standard and AFOLU Requirements), used as the
 * `metadata.reduction_activity` fallback until documents name the activities.
 */
const SUBCATEGORIES: ReadonlyArray<readonly [string, readonly string[]]> = [
  // AFOLU project categories
  ['Afforestation, Reforestation and Revegetation', ['ARR']],
  ['Agricultural Land Management', ['ALM']],
  ['Improved Forest Management', ['IFM']],
  ['Reducing Emissions from Deforestation and Forest Degradation', ['REDD', 'REDD+']],
  ['Avoided Planned Deforestation', ['APD']],
  ['Avoided Unplanned Deforestation and/or Degradation', ['AUDD']],
  ['Avoided Unplanned Deforestation', ['AUD']],
  ['Avoided Unplanned Frontier Deforestation and Degradation', ['AUFDD']],
  ['Avoided Unplanned Mosaic Deforestation and Degradation', ['AUMDD']],
  ['Avoided Conversion of Grasslands and Shrublands', ['ACOGS']],
  ['Avoided Planned Conversion', ['APC']],
  ['Avoided Unplanned Conversion', ['AUC']],
  ['Wetlands Restoration and Conservation', ['WRC']],
  ['Restoring Wetland Ecosystems', ['RWE']],
  ['Conservation of Intact Wetlands', ['CIW']],
  // IFM activity types
  ['Reduced Impact Logging', ['RIL', 'IFM-RIL']],
  ['Logged to Protected Forest', ['LTPF', 'IFM-LTPF']],
  ['Extended Rotation Age', ['ERA', 'IFM-ERA']],
  ['Low-Productive to High-Productive Forest', ['LTHP', 'IFM-LTHP']],
  // ALM activity types
  ['Improved Cropland Management', ['ICM']],
  ['Improved Grassland Management', ['IGM']],
  ['Cropland and Grassland Land-use Conversions', ['CGLC', 'CGC']],
  // Non-AFOLU categories Verra abbreviates
  ['Agriculture, Forestry and Other Land Use', ['AFOLU']],
  ['Carbon Capture and Storage', ['CCS']],
  ['Carbon Dioxide Removal', ['CDR']],
  ['Bioenergy with Carbon Capture and Storage', ['BECCS']],
  ['Direct Air Capture with Carbon Storage', ['DACCS']],
  ['Jurisdictional and Nested REDD+', ['JNR']],
];
const SUBCATEGORY_NAMES = new Map(SUBCATEGORIES.flatMap(([name, codes]) => codes.map((code) => [code, name] as const)));

/**
 * Names of all codes in PROJECT_SUBCATERGORY_NAMES values, in order, without repeats. Values such as "ARR; WRC",
 * "ARR, IFM" or "REDD/ALM" are split into codes ("REDD+" keeps its plus); a code is named case-insensitively
 * ("ACoGS"), and an unknown one is kept as written, never dropped.
 */
export function expandSubcategories(values: readonly string[]): string[] {
  const codes = values.filter((value) => typeof value === 'string').flatMap((value) => value.split(/[;,/|\n]|\s+and\s+|\s+&\s+/));
  // distinct trims the names and drops empty ones.
  return distinct(codes.map((code) => SUBCATEGORY_NAMES.get(code.trim().toUpperCase()) ?? code));
}
