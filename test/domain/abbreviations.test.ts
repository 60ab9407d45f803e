import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfPages } from '../../ingest/stages/extract.js';
import { abbreviationExpander, bestLongForm, findAbbreviations } from '../../src/domain/abbreviations.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

describe('bestLongForm (Schwartz-Hearst)', () => {
  it('matches the short form right to left, its first letter at a word start', () => {
    expect(bestLongForm('GWP', 'with a global warming potential')).toBe('global warming potential');
    expect(bestLongForm('AFOLU', 'the Agriculture, Forestry and Other Land Use')).toBe('Agriculture, Forestry and Other Land Use');
    // Letters inside words count too ("hydro fluorocarbons" for HFCs), but the first must begin a word.
    expect(bestLongForm('HFCs', 'emissions of hydro fluorocarbons')).toBe('hydro fluorocarbons');
    expect(bestLongForm('XYZ', 'nothing that matches here')).toBeUndefined();
  });
});

describe('findAbbreviations', () => {
  it('finds "long form (SHORT)" definitions, lower-casing the long form', () => {
    const text =
      'The project uses the Global Warming Potential (GWP) of IPCC AR2. A Designated Operational Entity (DOE) ' +
      'validated it; the DOE issued a Corrective Action Request (CAR).';
    expect(findAbbreviations(text)).toEqual([
      { short: 'GWP', long: 'global warming potential' },
      { short: 'DOE', long: 'designated operational entity' },
      { short: 'CAR', long: 'corrective action request' },
    ]);
  });

  it('keeps the first definition of a short form and rejects parentheses that define nothing', () => {
    const text =
      'Project Design Document (PDD). Later the plan document draft (PDD) again. Emissions (tCO2e) and a year ' +
      '(2021), a reference (see Section 3), a name (Botany Farm), Gujarat Fluorochemicals (GFL23) and a page (p. 4).';
    expect(findAbbreviations(text)).toEqual([{ short: 'PDD', long: 'project design document' }]);
  });

  it('does not reach across a sentence or a clause end for the long form', () => {
    expect(findAbbreviations('Verified Carbon. Units (VCU) are issued.')).toEqual([]);
  });
});

describe('abbreviationExpander', () => {
  const expand = abbreviationExpander([
    { short: 'GWP', long: 'global warming potential' },
    { short: 'DOE', long: 'designated operational entity' },
    { short: 'AR-AM0001', long: 'afforestation and reforestation methodology' },
  ]);

  it('adds the long form of a short form the passage writes, and the short form of a long form', () => {
    expect(expand('HFC 23 is a greenhouse gas with a GWP of 11,700.')).toBe('global warming potential');
    expect(expand('The Designated Operational Entity confirmed it.')).toBe('DOE');
    // In the order of the definitions, not of the passage.
    expect(expand('The DOE confirmed the GWP.')).toBe('global warming potential designated operational entity');
  });

  it('adds nothing when both forms or neither appear, and matches short forms as whole words only', () => {
    expect(expand('The global warming potential (GWP) of methane.')).toBe('');
    expect(expand('Nothing here.')).toBe('');
    expect(expand('GWPs and DOEx are other words; xGWP too.')).toBe('');
    // Short forms with regular-expression characters are matched literally.
    expect(expand('under AR-AM0001 version 2')).toBe('afforestation and reforestation methodology');
    expect(expand('under AR-AM00012')).toBe('');
  });
});

describeWithService('abbreviations of a real PDD', { available: corpusAvailable, why: 'no ../shared/corpus' }, () => {
  it('finds the definitions of the Gujarat HFC-23 PDD and expands the page that only writes "GWP"', async () => {
    const bytes = new Uint8Array(readFileSync(corpusPath('pdf', 'CDM_GFL-HFC23_project_design_document.pdf')));
    const result = await extractPdfPages(bytes);
    if (!result.ok) throw new Error(`extraction failed: ${result.reason}`);
    const abbreviations = findAbbreviations(result.pages.join('\n'));
    expect(abbreviations).toEqual(
      expect.arrayContaining([
        { short: 'GWP', long: 'global warming potential' },
        { short: 'PDD', long: 'project design document' },
        { short: 'GFL', long: 'gujarat fluorochemicals limited' },
      ]),
    );
    // Page 8: "a greenhouse gas (commonly referred to as GHG) with a GWP of 11,700".
    const page8 = result.pages[7] ?? '';
    expect(page8).toContain('GWP of 11,700');
    expect(page8.toLowerCase()).not.toContain('global warming potential');
    expect(abbreviationExpander(abbreviations)(page8).split(' ')).toEqual(expect.arrayContaining(['global', 'warming', 'potential']));
  });
});
