import { distinct } from './enrichment.js';

/**
 * Names of the short codes Verra puts in PROJECT_SUBCATERGORY_NAMES (spelled so by the registry): the AFOLU
 * project categories and their activity types (VCS Standard and AFOLU Requirements), used as the
 * `metadata.reduction_activity` fallback until documents name the activities.
 */
const SUBCATEGORY_NAMES: Readonly<Record<string, string>> = {
  // AFOLU project categories
  ARR: 'Afforestation, Reforestation and Revegetation',
  ALM: 'Agricultural Land Management',
  IFM: 'Improved Forest Management',
  REDD: 'Reducing Emissions from Deforestation and Forest Degradation',
  'REDD+': 'Reducing Emissions from Deforestation and Forest Degradation',
  APD: 'Avoided Planned Deforestation',
  AUDD: 'Avoided Unplanned Deforestation and/or Degradation',
  AUD: 'Avoided Unplanned Deforestation',
  AUFDD: 'Avoided Unplanned Frontier Deforestation and Degradation',
  AUMDD: 'Avoided Unplanned Mosaic Deforestation and Degradation',
  ACOGS: 'Avoided Conversion of Grasslands and Shrublands',
  APC: 'Avoided Planned Conversion',
  AUC: 'Avoided Unplanned Conversion',
  WRC: 'Wetlands Restoration and Conservation',
  RWE: 'Restoring Wetland Ecosystems',
  CIW: 'Conservation of Intact Wetlands',
  // IFM activity types
  RIL: 'Reduced Impact Logging',
  'IFM-RIL': 'Reduced Impact Logging',
  LTPF: 'Logged to Protected Forest',
  'IFM-LTPF': 'Logged to Protected Forest',
  ERA: 'Extended Rotation Age',
  'IFM-ERA': 'Extended Rotation Age',
  LTHP: 'Low-Productive to High-Productive Forest',
  'IFM-LTHP': 'Low-Productive to High-Productive Forest',
  // ALM activity types
  ICM: 'Improved Cropland Management',
  IGM: 'Improved Grassland Management',
  CGLC: 'Cropland and Grassland Land-use Conversions',
  CGC: 'Cropland and Grassland Land-use Conversions',
  // Non-AFOLU categories Verra abbreviates
  AFOLU: 'Agriculture, Forestry and Other Land Use',
  CCS: 'Carbon Capture and Storage',
  CDR: 'Carbon Dioxide Removal',
  BECCS: 'Bioenergy with Carbon Capture and Storage',
  DACCS: 'Direct Air Capture with Carbon Storage',
  JNR: 'Jurisdictional and Nested REDD+',
};

/** Splits "ARR; WRC", "ARR, IFM" or "REDD/ALM" into codes; "REDD+" keeps its plus. */
export function splitSubcategoryCodes(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    for (const part of value.split(/[;,/|\n]|\s+and\s+|\s+&\s+/)) {
      const code = part.trim();
      if (code !== '') out.push(code);
    }
  }
  return out;
}

/** The name of one code, case-insensitively ("ACoGS"); an unknown code is returned as written, never dropped. */
export function subcategoryName(code: string): string {
  const trimmed = code.trim();
  return SUBCATEGORY_NAMES[trimmed.toUpperCase()] ?? trimmed;
}

/** Names of all codes in PROJECT_SUBCATERGORY_NAMES values, in order, without repeats. */
export function expandSubcategories(values: readonly string[]): string[] {
  return distinct(splitSubcategoryCodes(values).map(subcategoryName));
}
