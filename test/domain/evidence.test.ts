import { describe, expect, it } from 'vitest';
import {
  announces,
  ANSWERED_SUPPORT,
  asksForNumber,
  composeAnswer,
  evidenceTerms,
  findEvidence,
  garbledFrom,
  leadSummary,
  questionNamer,
  questionFocus,
  scopeTerms,
  scopeTextTerms,
  UNFOCUSED_SUPPORT,
  unitTerms,
  warmPassage,
  withMarker,
  type EvidencePassage,
  type LineContext,
} from '../../src/domain/evidence.js';
import { lineShape } from '../../src/domain/page-furniture.js';
import { stem } from '../../src/domain/query.js';
import { sentenceSpans } from '../../src/domain/sentences.js';

const passages: EvidencePassage[] = [
  {
    id: 1,
    score: 0.9,
    text:
      '3.2 Baseline Scenario\nThe baseline scenario is the continued degradation of the land under grazing.\n' +
      'Table 4 shows the\nvintages of the project.',
  },
  {
    id: 2,
    score: 0.6,
    text:
      'PAI 1 is expected to achieve total GHG removals of 5,35,052 tCO2e over the initial 20-year\n' +
      'crediting period. The annual average carbon removal is estimated at 26,752 tCO2e. The auditor was VCS.',
  },
  { id: 3, score: 0.3, text: '\uf0b7 \uf0b7 \uf0b7 12 3 4 \u2211 = 0.5 x 12' },
];

/** A search's single passage, as the answer step gets it: one page window with a retrieval score. */
function onePassage(text: string): EvidencePassage[] {
  return [{ id: 1, score: 0.8, text }];
}

describe('sentenceSpans', () => {
  it('locates sentences verbatim, line breaks inside them included, and keeps a heading line apart', () => {
    const text = passages[0]!.text;
    const spans = sentenceSpans(text);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual([
      '3.2 Baseline Scenario',
      'The baseline scenario is the continued degradation of the land under grazing.',
      'Table 4 shows the\nvintages of the project.',
    ]);
    expect(spans.map((s) => s.heading)).toEqual([true, false, false]);
  });

  it('takes a numbered list item wrapped onto the next line for a sentence, not a heading', () => {
    // A validation report's references (the GFL report, page 16): item 8 runs on into "26 September 2003."
    const text =
      '6 REFERENCES\nCategory 2 Documents:\n8 CDM Approved Methodology AM0001, Incineration of HFC23 Waste streams, dated\n' +
      '26 September 2003.\n9 Government of India \u2013 The Environment (Protection) Act 1986\nPersons interviewed:';
    const spans = sentenceSpans(text).map((s) => [text.slice(s.start, s.end), s.heading]);
    expect(spans[0]).toEqual(['6 REFERENCES', true]);
    expect(spans).toContainEqual([
      'Category 2 Documents:\n8 CDM Approved Methodology AM0001, Incineration of HFC23 Waste streams, dated\n26 September 2003.',
      false,
    ]);
    // An item that ends its line is still cut off as before.
    expect(spans).toContainEqual(['9 Government of India \u2013 The Environment (Protection) Act 1986', true]);
  });

  it('takes a lettered line before a sentence for a heading, and a lettered item wrapped onto the next line for a sentence', () => {
    // The GFL PDD, page 17: the lettered heading glued the previous sentence to the next ("... Annex 9. (b) Composition
    // of HFC stream to be thermally oxidised The typical composition ...").
    const text =
      'A block diagram showing the source\nof HFC 23 emission from the plant is given as Annex 9.\n' +
      '(b) Composition of HFC stream to be thermally oxidised\n' +
      'The typical composition of HFC 23 stream from vent of Column No. C-209 (within the HFC\n22 plant) is given below.';
    const spans = sentenceSpans(text).map((s) => [text.slice(s.start, s.end), s.heading]);
    expect(spans).toEqual([
      ['A block diagram showing the source\nof HFC 23 emission from the plant is given as Annex 9.', false],
      ['(b) Composition of HFC stream to be thermally oxidised', true],
      ['The typical composition of HFC 23 stream from vent of Column No. C-209 (within the HFC\n22 plant) is given below.', false],
    ]);
    // VM0004's applicability conditions: an item that runs on in lower case is the item's sentence.
    const item = 'a) Project activities only include avoided planned land use conversion on undrained tropical\npeat swamp forests.';
    expect(sentenceSpans(item).map((s) => s.heading)).toEqual([false]);
  });

  it("keeps a form's section row and its wrapped labels apart from the field's sentence", () => {
    // VCS 5533's project description, page 35, as extracted: the template's label column beside the field's text.
    const text =
      'This ensures transparency and avoids any ambiguity regarding tenure or\nrights.\nBenefit Sharing 2.3.5\n' +
      'Process used to\ndesign the benefit\nsharing plan\n' +
      'The benefit-sharing plan was developed through participatory\nconsultations with individual farmers. ' +
      'Feedback from participants\ndirectly informed the final benefit-sharing arrangements.\n' +
      'Summary of the\nbenefit sharing\nplan\nThe agreement ensures that landholders retain full rights over their\nland.';
    const spans = sentenceSpans(text).map((s) => [text.slice(s.start, s.end), s.heading]);
    expect(spans).toContainEqual(['Benefit Sharing 2.3.5', true]);
    expect(spans).toContainEqual(['Process used to\ndesign the benefit\nsharing plan', false]);
    expect(spans).toContainEqual([
      'The benefit-sharing plan was developed through participatory\nconsultations with individual farmers.',
      false,
    ]);
    expect(spans).toContainEqual(['The agreement ensures that landholders retain full rights over their\nland.', false]);
    // A version's number of three parts is a field's value, not a section's (Fonthill Farms' project plan, page 6).
    const value =
      'Soil Organic Carbon Estimation in Regenerative\nCropping & Managed Grassland Ecosystems\nMethodology\nMethodology Version 1.2.2';
    const form = `Methodology Name\n${value}`;
    expect(sentenceSpans(form).map((s) => [form.slice(s.start, s.end), s.heading])).toEqual([
      ['Methodology Name', false],
      [value, false],
    ]);
    expect(sentenceSpans('Benefit Sharing 2.3.5')[0]?.heading).toBe(true);
  });

  it('judges the first line of a text cut from the middle of a page line by the whole line', () => {
    // GFL's PDD, page 62: a passage starts at a sentence in the middle of the line "The Inox Group is promoted by
    // Mr. Pavan Jain and Mr Vivek Jain. Mr Deepak Asher is the Chief". Alone, its first line reads like a form's label.
    const text = 'Mr Deepak Asher is the Chief\nFinancial Officer and looks after the Group\u2019s corporate finance activities.';
    const head = 'The Inox Group is promoted by Mr. Pavan Jain and Mr Vivek Jain. ';
    const spans = (h?: string) => sentenceSpans(text, h).map((s) => text.slice(s.start, s.end));
    expect(spans()).toEqual([
      'Mr Deepak Asher is the Chief',
      'Financial Officer and looks after the Group\u2019s corporate finance activities.',
    ]);
    expect(spans(head)).toEqual([text]);
    // A heading judged whole as well: "Scenario" ends the line "3.4 Baseline Scenario", a heading, not a sentence.
    const heading = sentenceSpans('Scenario\nThe land is degraded.', '3.4 Baseline ');
    expect(heading[0]).toMatchObject({ start: 0, end: 8, heading: true });
  });

  it("keeps a table's short rows with the sentence that introduces them, and wrapped prose whole", () => {
    // VM0005, page 20: the rows hold figures, so they are neither labels nor section rows.
    const table =
      'This methodology uses the fractions for tropical wood products, projected over 95 years:\n' +
      'Wood Product Class fo (tropical)\nSawnwood 0.84\nWoodbase panels 0.97\nOther industrial roundwood 0.99\n' +
      'The methodology makes the assumption that all other classes of wood products are oxidized.';
    const rows = sentenceSpans(table).map((s) => table.slice(s.start, s.end));
    expect(rows.some((s) => s.includes('Sawnwood 0.84\nWoodbase panels 0.97'))).toBe(true);
    // A paragraph's last short line ends in its final punctuation; the lines of a sentence are full width.
    const prose =
      'The project is located in the district of Purulia in West Bengal, India, on\nprivate land.\n' +
      'It covers degraded\nland of smallholder farmers who joined the project during 2024 and 2025.';
    expect(sentenceSpans(prose).map((s) => prose.slice(s.start, s.end))).toEqual([
      'The project is located in the district of Purulia in West Bengal, India, on\nprivate land.',
      'It covers degraded\nland of smallholder farmers who joined the project during 2024 and 2025.',
    ]);
  });
});

describe('findEvidence', () => {
  it('quotes a sentence that refers back with the short sentence before it, and one that refers to nothing alone', () => {
    // The GFL PDD, page 24: "In other words, ..." alone does not say what the year 2040 is the end of.
    const text =
      'HFC 23 forms as a by-product in the production of HCFC 22. Further, it may be noted that under the Montreal ' +
      'Protocol, the phase out regulation for HCFC 22 in India is set out for the year 2040, according to the\nschedule ' +
      'agreed by the parties to the Protocol in their meeting at Montreal. This implies that HCFC 22 can be produced in ' +
      'India till the year 2040. In other words, HFC 23, a by-product generated in the production of HCFC 22 shall also ' +
      'be\nproduced and emitted to the atmosphere till the year 2040.';
    const e = findEvidence('Until what year could India keep producing HCFC-22, and with it by-product HFC-23?', [{ id: 1, text }]);
    expect(e.quotes[0]?.text).toMatch(/^This implies that HCFC 22 can be produced in India till the year 2040\. In other words, HFC 23/u);
    // A line break inside the words that refer back (VM0006, page 26: "In other\nwords, ...").
    const strata =
      'conditions demand a different period.\nBy definition, degradation is a process that must have persisted for at ' +
      'least 3 years. In other\nwords, forest land that transitions from a stratum with a larger carbon density stock ' +
      'to a\nstratum with smaller carbon density stock can only be considered degradation if it has\npersisted for 3 years.';
    const d = findEvidence('How long must a move to a stratum with smaller carbon density stock persist to count as degradation?', [
      { id: 1, text: strata },
    ]);
    expect(d.quotes[0]?.text).toMatch(
      /^By definition, degradation is a process that must have persisted for at least 3 years\. In other\nwords/u,
    );
    // "It is not economical to ..." refers to nothing before it (the GFL PDD, page 21).
    const heat =
      'The make-up water into the cooling tank is adjusted so that the acids in the overflow stay at the desired level. ' +
      'It is not economical to recover waste heat from flue gas, as these are very corrosive in nature.';
    const h = findEvidence('Why does the incinerator not recover heat from its flue gas?', [{ id: 1, text: heat }]);
    expect(h.quotes[0]?.text).toBe('It is not economical to recover waste heat from flue gas, as these are very corrosive in nature.');
  });

  it('starts the quote of a short best sentence with the sentence before it when that one scores nearly as well', () => {
    // The GFL PDD, page 23: what the system is made of where it is hot and corrosive follows from the sentence before.
    const text =
      'A.4.3.11 Material of construction\nThe thermal oxidation system produces highly corrosive products of ' +
      'combustion. The system\nuses special materials like high Cr-Mo steel or composite materials like Hastelloy, ' +
      'where high\ntemperature and corrosion conditions exist. Wherever ambient temperatures exist, use of\nplastics ' +
      'like FRP or PP is made.\nA.4.4 Brief explanation of how the anthropogenic emissions are to be reduced';
    const question =
      'Which plastics are used at ambient temperatures in the oxidation system, and what materials where conditions are hot and corrosive?';
    const e = findEvidence(question, [{ id: 1, text, score: 0.8 }]);
    expect(e.quotes[0]?.text).toMatch(/^The thermal oxidation system produces highly corrosive products of combustion\. The system\nuses/u);
    // Its core, stated when the whole does not fit, is the best sentence alone.
    expect(e.quotes[0]?.core).toBe(
      'The system\nuses special materials like high Cr-Mo steel or composite materials like Hastelloy, where high\n' +
        'temperature and corrosion conditions exist.',
    );
    // Not when the best sentence opens an item of its own: the sentence before is another item's.
    const rules =
      'The buffer pool contribution of each issuance is set by the credit class.\n' +
      'The buffer pool contribution of each issuance is released after ten years.';
    const asked = 'When is the buffer pool contribution of each issuance released?';
    expect(findEvidence(asked, [{ id: 1, text: rules, score: 0.8 }]).quotes[0]?.text).toBe(rules);
    const items = rules
      .replace('The buffer pool contribution of each issuance is set', 'Rule 1: The buffer pool contribution of each issuance is set')
      .replace(
        'The buffer pool contribution of each issuance is released',
        'Rule 2: The buffer pool contribution of each issuance is released',
      );
    expect(findEvidence(asked, [{ id: 1, text: items, score: 0.8 }]).quotes[0]?.text).toBe(
      'Rule 2: The buffer pool contribution of each issuance is released after ten years.',
    );
  });

  it('cuts a run-together list into groups where its items start, not in the middle of the item that answers', () => {
    // VM0006, page 20: the bullets' text runs on without a sentence's end between them, so it is quoted by groups of
    // lines; the group that outgrew 250 characters was cut after "at minimum," and the quote began "15% forest cover".
    const text =
      '• The reference region must exclude deforested areas caused by natural (non-\nanthropogenic) large-scale, ' +
      'extraordinary events (e.g. geological and weather impacts\nwhich are infrequent but significant in their impact ' +
      'on the landscape). Such areas are\nexcluded from the reference region since these are not likely to occur within ' +
      'the project\narea during the crediting period.\n• The project proponent must demonstrate that the reference ' +
      'region contains, at minimum,\n15% forest cover at the beginning of the crediting period, unless the reference ' +
      'region\nencompasses a whole country or island. This condition must be explicitly checked using\nthe ' +
      'classification that is developed under Section 8.1.2 of this methodology.';
    const e = findEvidence('What minimum forest cover must the reference region have at the start of the crediting period?', [
      { id: 1, text },
    ]);
    expect(e.quotes[0]?.text).toMatch(
      /^• The project proponent must demonstrate that the reference region contains, at minimum,\n15% forest cover/u,
    );
  });

  it('starts a quote where its sentence starts when a group of lines cut it in the middle', () => {
    // VM0006, page 11: the list item is longer than a group of lines, and its second group began "those based on".
    const text =
      'This methodology is applicable to areas where land prior to project implementation meets the\nfollowing conditions:\n' +
      '• Land in the project area consists of either one contiguous area or multiple discrete project\n' +
      'area parcels, and must meet an internationally accepted definition of forest, such as\n' +
      'those based on UNFCCC host-country thresholds or FAO definitions, and must qualify as\n' +
      'forest for a minimum of 10 years before the project start date.\n' +
      '• The project area must be deforested or degraded in absence of the REDD project activity\n' +
      'and the deforestation and degradation must be mosaic in nature as described in the VCS\nAFOLU Requirements.';
    const passages = [{ id: 1, text }];
    const e = findEvidence('For how long before the project start date must the project land have qualified as forest?', passages);
    expect(e.quotes[0]?.text).toMatch(/^• Land in the project area consists of .* before the project start date\.$/su);
    expect(composeAnswer(e, passages)).toMatch(/^Land in the project area consists of/u);
  });

  it('quotes the sentence of each passage that holds the question words, verbatim, never the heading', () => {
    const ev = findEvidence('What is the baseline scenario?', passages);
    const q1 = ev.quotes.find((q) => q.passageId === 1);
    expect(q1?.text).toBe('The baseline scenario is the continued degradation of the land under grazing.');
    for (const q of ev.quotes) {
      const p = passages.find((x) => x.id === q.passageId)!;
      expect(p.text.slice(q.start, q.end)).toBe(q.text);
    }
    // A passage of glyphs and figures has nothing quotable.
    expect(ev.quotes.find((q) => q.passageId === 3)).toBeUndefined();
    expect(ev.answered).toBe(true);
  });

  it('quotes a long sentence of wrapped prose whole, and cuts a long run of short lines into groups', () => {
    // The Guangxi PDD, page 83: one sentence of 330 characters over four full lines.
    const prose =
      '(1) Local forestry departments: Forestry Bureaus and forestry stations of both project counties view\n' +
      'that the proposed A/R CDM project activity will increase forest resources, improve the local environment\n' +
      'and increase income of local farmers/communities, and that the planting will be supported by the county\n' +
      'governments with technical training for the farmers.';
    const whole = findEvidence('What do the local forestry departments think of the project activity?', [{ id: 1, text: prose }]);
    expect(whole.quotes[0]?.text).toBe(prose);
    // A table's rows run together (short lines, no full stop) are still cut into groups of lines.
    const rows = Array.from({ length: 14 }, (_, i) => `Stratum ${i + 1} forest resources ${100 + i} ha`).join('\n');
    const cut = findEvidence('Which stratum holds 113 ha of forest resources?', [{ id: 1, text: rows }]);
    expect((cut.quotes[0]?.text.length ?? 0) < rows.length).toBe(true);
    expect(cut.quotes[0]?.text).toContain('Stratum 14 forest resources 113 ha');
  });

  it("quotes a template's parameter record from its first line through its value applied", () => {
    // A record starts a group of lines of its own (VCS 5533's project description, page 51): its value is quoted with
    // its description, not left to the next group.
    const records =
      'Source of data Field measurement\nValue applied 0.47\nJustification of choice of data or description of\n' +
      'measurement methods and procedures applied IPCC default value for tropical forests\nPurpose of data\n' +
      'Calculation of project emissions using the area-based quantification approach\nComments None\n' +
      'Data / Parameter R\nData unit dimensionless\nDescription Root to shoot ratio indicating fraction of below-ground to above-\n' +
      'ground dry biomass\nSource of data IPCC GPG LULUCF 2003 Table 3A.1.8\nValue applied 0.27\n' +
      'Justification of choice of data or description of\nmeasurement methods and procedures applied Default value';
    const ratio = findEvidence('What root to shoot ratio is applied, and what is its source?', [{ id: 1, text: records }]);
    expect(ratio.quotes[0]?.text).toMatch(/^Data \/ Parameter R\n.*\nValue applied 0\.27/s);
    // A record's quote runs on through its value applied, up to the record's next label (CDM 9199's monitoring
    // report, page 25: the description ends a sentence, the values follow it).
    const pine =
      'Data/parameter: Root-shoot ratio, Rj\nUnit Dimensionless\nDescription Root-shoot ratio for species j.\n' +
      'Source of data Good Practice Guidance for Land Use, Land-Use Change and Forestry. IPCC, 2003. Table 3A.1.8\n' +
      'Value(s) applied) Pino sp 0.46 (<50 t.ha de biomasa a\u00e9rea)\n0.32 (50-150 t.ha de biomasa a\u00e9rea)\n' +
      'Choice of data or measurement methods and procedures N.A';
    const applied = findEvidence('Which root-shoot ratios does the monitoring apply to species j?', [{ id: 1, text: pine }]);
    expect(applied.quotes[0]?.text).toMatch(/^Data\/parameter: Root-shoot ratio, Rj\n.*\n0\.32 \(50-150 t\.ha de biomasa a\u00e9rea\)$/s);
  });

  it('takes the next sentence along when the fact runs over two', () => {
    const ev = findEvidence('How much carbon removal is expected over the crediting period, and what is the annual average?', passages);
    const q2 = ev.quotes.find((q) => q.passageId === 2);
    expect(q2?.text).toContain('5,35,052 tCO2e');
    expect(q2?.text).toContain('26,752 tCO2e');
    expect(q2?.text).not.toContain('auditor');
  });

  it('takes along the next sentence that gives the number asked for, and not one that holds no question word', () => {
    // The Colombian validation report, page 28: the sentence naming the carrying capacity has no figure; the next,
    // which refers back to it, has them.
    const grazing = onePassage(
      'ΔCLmax was calculated on the basis of the average value for carrying capacity in the Orinoco plains region ' +
        '(head of cattle per ha). This value oscillates between 0.09 head per ha to 1.56, with an average of 0.39 ' +
        'and is further corroborated by /13/. The site visit covered all the farms of the first planting year.',
    );
    const figures = findEvidence('What cattle carrying capacity figures did the validator rely on?', grazing);
    expect(figures.quotes[0]?.text).toContain('average of 0.39');
    expect(figures.quotes[0]?.text).not.toContain('site visit');
    // A question that does not ask for a number keeps the sentence alone.
    const basis = findEvidence('On what basis was the carrying capacity of the Orinoco plains calculated?', grazing);
    expect(basis.quotes[0]?.text).not.toContain('oscillates');

    // A strong passage's next sentence that holds none of the question's words does not join its best one.
    const leaks = [
      {
        id: 1,
        score: 1,
        text:
          'This methodology applies to project activities that install infra-red, real-time leak detection systems on ' +
          'refrigeration equipment in order to reduce leaks of refrigerants. Furthermore, a parallel document has been ' +
          'prepared pending a board determination.',
      },
    ];
    const applies = findEvidence(
      'What supermarket chains and refrigerant gas types does the leak detection methodology cover in US stores?',
      leaks,
    );
    expect(applies.quotes[0]?.text).toMatch(/refrigerants\.$/);
  });

  it('runs on through the rows of a table below the quote that the question names by their label', () => {
    // The GFL PDD's annex (page 71) and VM0004's Table 5 (page 54), as extracted: the sentence or heading that the
    // question's words choose, then the rows that hold the figures asked for.
    const gwp = onePassage(
      'GWPs (100-year time horizon) in the SAR and TAR of the IPCC\nGas Chemical Formula TAR SAR TAR / SAR\n' +
        'Carbon Dioxide CO2 1 1 1.00\nMethane CH4 23 21 1.10\nHydro fluorocarbons (HFCs)\nHFC-23 CHF3 12,000 11,700 1.03\n' +
        'HFC-32 CH2F2 550 650 0.85\nHFC-41 CH3F 97 150 0.65',
    );
    const hfc = findEvidence('What 100-year GWP does the IPCC Third Assessment Report give HFC-23?', gwp, {
      scope: ['Thermal Oxidation of HFC 23'],
    });
    // Up to the named row, not the next rows that share its "HFC".
    expect(hfc.quotes[0]?.text).toMatch(/HFC-23 CHF3 12,000 11,700 1\.03$/);
    expect(gwp[0]!.text.slice(hfc.quotes[0]!.start, hfc.quotes[0]!.end)).toBe(hfc.quotes[0]!.text);

    const peat = onePassage(
      'The emission factors for peat combustion at the lower temperature must be assumed in the ex ante baseline ' +
        'estimates. Table 5: Greenhouse gas emissions from the combustion of peat.\nComponent\nTemperature (°C)\n' +
        '480 600\ng (ton peat)-1\nCO2 185,000 149,591\nCH4 5,785 11,338\n8.1.2.3 Estimation of emissions from ' +
        'exported dissolved organic carbon. Projects must account for these emissions.',
    );
    const factors = findEvidence('Which peat combustion emission factors must be used ex ante, and what are the CO2 and CH4 values?', peat);
    expect(factors.quotes[0]?.text).toMatch(/^The emission factors .*CH4 5,785 11,338$/s);

    // A heading row of words and figures is no row of cells; rows the question does not name are left alone.
    const thinning = onePassage(
      'General thinning schedule for species of the commercial stand model.\nSpecies Tree ha-1 Thinning 1 Thinning 2 ' +
        'Thinning 3\nPinus caribaea 1,111 30% 40%',
    );
    const schedule = findEvidence('What thinning schedule is planned for the stands?', thinning);
    expect(schedule.quotes[0]?.text).toBe('General thinning schedule for species of the commercial stand model.');

    // Dates are cells too.
    const periods = onePassage(
      'The monitoring periods of the project are as follows.\nPeriod Start End\nFirst 01/01/2010 16/02/2016\nSecond 17/02/2016 – 01/10/2020\nThe third period will follow.',
    );
    const second = findEvidence('Which dates does the second monitoring period cover?', periods);
    expect(second.quotes[0]?.text).toMatch(/^The monitoring periods .*Second 17\/02\/2016 – 01\/10\/2020$/s);
  });

  it("quotes a form's field by its answer, not by the instruction above it", () => {
    // A Regen project plan, page 8, as extracted: each section's instruction holds the question's words, the
    // proponent's answer follows it (a bare date range that alone would be too short to quote).
    const plan = onePassage(
      '1.9.\nProject Crediting Period\nIndicate the crediting period, specifying the day, month, and year for the start and end\n' +
        'dates and the total number of years.\n01/01/2023 to 31/12/2032.\n1.10.\nPermanence Period\nIndicate the permanence ' +
        'period per the requirements stipulated in the Credit Class.\nThe Credit Class requires a 10-year permanence period, ' +
        'checked by a year-10 monitoring round. The permanence period for this project is\n01/01/2033 to 31/12/2042.\n' +
        '1.11.\nProject Location\nIndicate the project location and attach a GIS file specifying the geographic boundary\n' +
        'of the project.\nCountry England, United Kingdom.\nRegion / State / Province Wiltshire.\nCity / Town / Community Salisbury.',
    );
    const crediting = findEvidence('What is the crediting period?', plan);
    expect(crediting.quotes[0]?.text).toBe('01/01/2023 to 31/12/2032.');
    expect(crediting.answered).toBe(true);
    // The answer names the field, as the form titles it, before its answer.
    expect(crediting.quotes[0]?.label).toBe('Project Crediting Period');
    expect(composeAnswer(crediting, plan)).toBe('Project Crediting Period: 01/01/2023 to 31/12/2032 [1].');
    const located = findEvidence('What is the project location?', plan);
    expect(located.quotes[0]?.text).toBe(
      'Country England, United Kingdom.\nRegion / State / Province Wiltshire.\nCity / Town / Community Salisbury.',
    );
    // A sentence that merely starts with such a verb is no instruction.
    const forests = onePassage('State forests cover 40% of the project area. The rest is private land.');
    expect(findEvidence('How much of the project area do state forests cover?', forests).quotes[0]?.text).toBe(
      'State forests cover 40% of the project area.',
    );
  });

  it('quotes a numbered heading the question names by the start of its section, labelled by its title', () => {
    // The VCS 5533 project description, page 7, as extracted: footnotes name "the project proponent" in passing; the
    // section that answers holds no word of the question below its heading.
    const page = onePassage(
      '6 In respect of each PAI, there will be evidence of project ownership held by the project\nproponent from the ' +
        'respective start date of each PAI.\n7 The new PAI will have a start date same as or later than the grouped ' +
        'project start date.\n1.6 Project Proponent\nOrganization name Hexa Carbon One Private Limited\nContact person ' +
        'Rachit Verma\nTitle Senior Vice President\n1.7 Other Entities Involved in the Project\nOrganization name IMPCA ' +
        'Services Pvt. Ltd.',
    );
    const scope = { scope: ['VCS5533 project description'] };
    const who = findEvidence('Who is the project proponent?', page, scope);
    expect(who.quotes[0]?.text).toBe(
      'Organization name Hexa Carbon One Private Limited\nContact person Rachit Verma\nTitle Senior Vice President',
    );
    expect(who.quotes[0]?.label).toBe('Project Proponent');
    expect(composeAnswer(who, page)).toMatch(/^Project Proponent: Organization name Hexa Carbon One Private Limited Contact person/);
    // The next section's heading names other words: its section is not quoted for this question.
    expect(who.quotes[0]?.text).not.toContain('IMPCA');

    // A template's text with placeholders for the proponent to fill in is not the project's: never quoted.
    const template = onePassage(
      'The project may claim credits for [project ID] associated with [project proponent or authorized representative ' +
        'organization name(s)].\nThe project proponent is Hexa Carbon One [12].',
    );
    expect(findEvidence('Who is the project proponent?', template, scope).quotes[0]?.text).toBe(
      'The project proponent is Hexa Carbon One [12].',
    );

    // A heading in capitals without a number may be a running header: it stands for nothing.
    const header = onePassage('ROTATION AGE\nVersion 1.3 of the tool applies.\nThe rotation age of the stand is 30 years.');
    expect(findEvidence('What is the rotation age?', header).quotes[0]?.text).toBe('The rotation age of the stand is 30 years.');
    // A heading that only shares a word or two with the question is no answer: the sentence that holds them wins.
    const shared = onePassage(
      '4.2 Activity Method for All Tidal Wetlands Conservation and Restoration Project Activities\nThis methodology uses ' +
        'an activity method.\nNitrogen fertilizer or manure may be applied in wetland restoration activities.',
    );
    expect(findEvidence('Can a wetland restoration activity apply fertilizer or manure?', shared).quotes[0]?.text).toBe(
      'Nitrogen fertilizer or manure may be applied in wetland restoration activities.',
    );

    // A heading wrapped onto a second line (VM0007, page 32): the line in title case is the heading's, not its section's
    // answer, when a sentence follows it; alone under its heading it is the field's value.
    const wrapped = onePassage(
      '7.2 Activity Method \u2013 All Tidal Wetlands Conservation and Restoration\nProject Activities\nThis methodology ' +
        'uses an activity method for the demonstration of additionality of tidal wetlands conservation and restoration ' +
        'project activities.',
    );
    const method = findEvidence(
      'What is the activity method for all tidal wetlands conservation and restoration project activities?',
      wrapped,
    );
    expect(method.quotes[0]?.text).toMatch(/^This methodology uses an activity method/);
    expect(method.quotes[0]?.label).toBe('Activity Method \u2013 All Tidal Wetlands Conservation and Restoration Project Activities');
    const value = onePassage('3.1 Monitoring Plan Changes\nNone Reported\n3.2 Sampling Design\nPlots are laid out on a grid.');
    expect(findEvidence('What monitoring plan changes were there?', value).quotes[0]?.text).toBe('None Reported');
  });

  it('runs on through what a quote announces with a colon, but not after a label', () => {
    // The GFL PDD, page 16: the address is a list of short lines after the sentence that announces it; the form runs
    // on as one long span, quoted by groups of its lines, and the group the question's words choose ends at the colon.
    const address = onePassage(
      'A.4.1.4 Details of physical location including information allowing the unique identification of this\n' +
        'project activity\n(a) Address\nThe thermal oxidation project will be located at the existing HCFC 22 Complex of GFL\n' +
        'located at the following address:\nGujarat Fluorochemicals Limited\nSurvey No. 16 / 3, 26, 27\nRanjitnagar\n' +
        'Taluka Ghoghamba\nDistrict Panchmahals\nGujarat, India\n(b) Physical Location of the Project\n' +
        'The location map of the Gujarat Fluorochemicals Limited is attached as Annex 7.',
    );
    const quote = findEvidence('What is the address of the thermal oxidation project?', address).quotes[0]?.text ?? '';
    expect(quote).toMatch(/following address:\nGujarat Fluorochemicals Limited\n.*\nGujarat, India$/s);
    expect(quote).not.toContain('Physical Location');

    expect(announces('The project will be located at the existing complex of GFL\nlocated at the following address:')).toBe(true);
    expect(announces('Examples of appropriate models include:')).toBe(true);
    // A form's label and a formula's "Where:" announce nothing to quote.
    expect(announces('GHG removals estimate: 256 109 tCO2e\nValidation Phases:')).toBe(false);
    expect(announces('LFME = 0.2 if C BSLpre > NCS x 1.15\nWhere:')).toBe(false);
  });

  it('answers a question for a place by the sentence that names one, though it holds no word of the question', () => {
    const plan = onePassage(
      'Project Proponents implementing an aggregated project must include location information for all enrolled sites.\n' +
        'Country England, United Kingdom.\nRegion / State / Province Northamptonshire.\nThe project is managed by its owner.',
    );
    // As a search asks it: the document's title is scope, so "project" names where to look.
    const scope = { scope: ['Botany Farm project plan'] };
    const where = findEvidence('Where is the project located?', plan, scope);
    expect(where.quotes[0]?.text).toMatch(/^Country England, United Kingdom\./);
    expect(where.answered).toBe(true);
    const county = findEvidence('In which county is the farm?', plan, scope);
    expect(county.quotes[0]?.text).toMatch(/Northamptonshire\.$/);
    // "Where applicable" is a condition, not a question for a place.
    const applicable = findEvidence('Which sites must include location information, where applicable?', plan, scope);
    expect(applicable.quotes[0]?.text).toMatch(/^Project Proponents/);
  });

  it('asks a date of a question for a date, not any figure', () => {
    const start = onePassage(
      '6 In respect of each PAI, there will be evidence of project ownership from the respective start date of each PAI. ' +
        'The project start date is the date of the first plantation, 15-July-2022.',
    );
    for (const question of ['When did the project start?', 'What is the project start date?']) {
      expect(findEvidence(question, start).quotes[0]?.text).toBe(
        'The project start date is the date of the first plantation, 15-July-2022.',
      );
    }
  });

  it('does not join the next sentence to a quote across a table it would carry along', () => {
    // The demo PD's Table 4.1 (scripts/make-demo-pdfs.ts): the caption, ten rows of figures, then the sentence after.
    const removals = onePassage(
      'Table 4.1: Estimated net GHG removals for the first ten years of the crediting period (tCO2e).\n' +
        'Year Net removals Cumulative\n2022 3,120 3,120\n2023 9,870 12,990\n2024 18,450 31,440\n2025 27,300 58,740\n' +
        '2026 35,940 94,680\n2027 42,610 137,290\n2028 48,200 185,490\n2029 52,730 238,220\n2030 55,980 294,200\n' +
        '2031 58,040 352,240\nFor the years 2032 to 2051 the removals are estimated at 885,260 tCO2e in total (44,263 ' +
        'tCO2e per year on\naverage), giving 1,237,500 tCO2e over the 30-year crediting period and an average of 41,250 tCO2e per year.',
    );
    const quote = findEvidence('What net GHG removals are estimated over the crediting period?', removals).quotes[0]?.text ?? '';
    expect(quote).not.toContain('2022 3,120');
  });

  it('is not answered when the rarer question words are found nowhere', () => {
    const ev = findEvidence('At what price per credit, and to which buyer, were offtake agreements signed?', passages);
    expect(ev.answered).toBe(false);
    expect(ev.support).toBeLessThan(ANSWERED_SUPPORT);
    // The closest passages are still quoted, so a reader can check.
    expect(ev.quotes.length).toBeGreaterThan(0);
  });

  it('asks for more support when the words naming what is asked are in no passage', () => {
    expect(questionFocus('Does the farm irrigate its maize, and with what irrigation system?')).toEqual(
      ['irrigation', 'system'].map((w) => evidenceTerms(w)[0]),
    );
    expect(questionFocus('How many clarification requests did the validation raise (not the Colombian one)?')).toEqual(
      evidenceTerms('clarification requests'),
    );
    expect(questionFocus('Where is the project located?')).toEqual([]);
    const crops = [{ id: 1, text: 'The rotation grows maize, poppies and winter wheat on the farm with cover crops in winter.' }];
    const about = findEvidence('What irrigation system and pumps water the maize and poppies of the farm?', crops);
    const asked = findEvidence('Which crops does the farm grow in rotation besides maize and poppies?', crops);
    // Both find the rotation sentence; only the second asks for something it names.
    expect(about.support).toBeGreaterThanOrEqual(ANSWERED_SUPPORT);
    expect(about.support).toBeLessThan(UNFOCUSED_SUPPORT);
    expect(about.answered).toBe(false);
    expect(asked.answered).toBe(true);
  });

  it('reads an ordinal as its number and a dash between words as a compound', () => {
    const terms = evidenceTerms('The meeting was scheduled for 5th June\u2014World Environment Day, the 2nd of its kind.');
    for (const w of ['5', 'June', 'World', '2']) expect(terms).toContain(evidenceTerms(w)[0]);
    expect(evidenceTerms('HFC-23')).toEqual(['hfc-23', 'hfc', '23']);
    // The question's "5 June" meets the page's "5th June\u2014World Environment Day".
    const page = [
      {
        id: 1,
        text:
          'Stakeholder consultations were held in each village in May. The consultation meeting was purposefully ' +
          'scheduled for 5th June\u2014World Environment Day\u2014to align with the objectives of afforestation.',
      },
    ];
    const ev = findEvidence('Why was the stakeholder consultation meeting held on 5 June?', page);
    expect(ev.quotes[0]?.text).toMatch(/^The consultation meeting/);
  });

  it("never leads a quote with a table's or figure's caption while its passage has a sentence", () => {
    // The demo's Rio Verde project description: the caption holds the question's words as well as the sentence.
    const page = onePassage(
      'Table 4.1: Estimated net GHG removals for the first ten years of the crediting period (tCO2e).\n' +
        'The project has a crediting period of 30 years, from 1 January 2022 to 31 December 2051.',
    );
    const ev = findEvidence('What is the crediting period?', page);
    expect(ev.quotes[0]?.text).toBe('The project has a crediting period of 30 years, from 1 January 2022 to 31 December 2051.');
    // A caption whose label the splitter takes for a sentence of its own ("Table 11."), as CDM 9199's monitoring report
    // has it, is a caption all the same.
    const split = onePassage(
      'Nearly 400 thousand labor wages have been generated (Table 10) and a total of 1,740 jobs during\n' +
        'the current monitoring period.\nTable 11. Days wage and employment generated (2005-2019).\nYear Workforce\n2005 26.16',
    );
    expect(findEvidence('How much employment has the project generated?', split).quotes[0]?.text).toMatch(/^Nearly 400 thousand/);
    // A passage of a caption alone is still quoted by it.
    const alone = onePassage('Figure 3: Map of the crediting period strata of the project area');
    expect(findEvidence('What is the crediting period?', alone).quotes[0]?.text).toMatch(/^Figure 3: Map/);
  });

  it("leads a quote with a table's caption when rows of figures follow it, through the rows that fit", () => {
    // CDM 547's PDD (Table C-1, page 54), as extracted: the caption and column headings hold the question's words, the
    // rows hold the figures, and the formula's legend above them holds the words again without a figure.
    const rows = [
      'Pinus massoniana 0.380 (43, 0.019) 1.46 (103, 0.47) 0.283 (77, 0.043)',
      'Cunninghamia lanceolata 0.307 (54, 0.009) 1.53 (237, 0.27) 0.255 (237, 0.040)',
      'Schima superba 0.598 (482, 0.012) 1.79 (120, 0.36) 0.217 (94, 0.075)',
    ];
    const text =
      'BEF = biomass expansion factor for conversion of biomass of standing volume to aboveground biomass, dimensionless.\n' +
      'R = Root-shoot ratio, dimensionless.\n' +
      'Table C-1 Wood density, BEF and Root-shoot ratio for species used in the proposed A/R CDM project activity\n' +
      'Tree species Wood Density (tonnes d.m.m-3 standing volume) BEF Root-shoot ratio\n' +
      `${rows.join('\n')}\n` +
      'Note: data in parentheses represent number of samples and standard deviation respectively.';
    const ev = findEvidence('What wood density, BEF and root-shoot ratio does the project use for Schima superba?', onePassage(text));
    const quote = ev.quotes[0]!;
    expect(quote.text).toMatch(/^Table C-1 Wood density/);
    expect(quote.text.endsWith(rows[2]!)).toBe(true);
    expect(text.slice(quote.start, quote.end)).toBe(quote.text);
    // The caption states nothing alone: the table's quote has no best sentence to stand for it.
    expect(quote.core).toBeUndefined();
  });

  it('reads a tonne unit as tonnes of its gas, and a removal as what the project removes', () => {
    // The demo's Rio Verde project description: "tCO2e" and "removals", where the question says "tonnes of CO2e"
    // and "remove"; before, "tonnes" (what is asked) was in no sentence and the question was refused.
    const page = onePassage(
      'The project restores degraded pasture with cacao and native timber trees. The estimated average net removals are ' +
        '41,250 tCO2e per year, 1,237,500 tCO2e over the crediting period.',
    );
    const ev = findEvidence('How many tonnes of CO2e will the project remove per year?', page);
    expect(ev.quotes[0]?.text).toMatch(/^The estimated average net removals are 41,250 tCO2e per year/);
    expect(ev.answered).toBe(true);
    expect(unitTerms(evidenceTerms('41,250 tCO2e'))).toEqual([stem('tonnes'), 'co2e']);
    expect(unitTerms(evidenceTerms('t CO2-e'))).toEqual([]);
  });

  it('answers a question about the validator from what the validation found', () => {
    // The demo's Rio Verde validation report, page 2: no sentence says "validator" or "find" but the lead's name.
    const report = onePassage(
      'Lead validator: Mariana Ospina.\nThe validation raised three corrective action requests (CARs) and two clarification ' +
        'requests (CLs); all were closed before this report was issued.',
    );
    const ev = findEvidence('What did the validator find?', report);
    expect(ev.quotes[0]?.text).toMatch(/The validation raised three corrective action requests/);
  });

  it("chooses sentences without the words of the documents' titles, but judges `answered` with them", () => {
    // VM0001, page 13 as a window: the methodology's subject words (its title's) are in every sentence; the one that
    // answers is chosen by the rest of the question ("firm", "provides", "monitoring", "verifier").
    const vm0001 = onePassage(
      'This methodology applies to project activities that install infra-red, real-time leak detection systems on US ' +
        'retail refrigeration equipment in order to reduce refrigerant leaks. However, consistent with conflict of ' +
        "interest concerns, the company's third party service agency which provides real time leak rate monitoring " +
        'services cannot simultaneously serve as the third party carbon credit verifier for VCS carbon crediting purposes.',
    );
    const titles = ['VCS Methodology VM0001\nInfra-red Automatic Refrigerant Leak Detection Efficiency Project Methodology'];
    const question =
      'Under the infra-red refrigerant leak detection methodology, may the firm that provides the real-time leak monitoring service also act as the VCS verifier?';
    expect(findEvidence(question, vm0001).quotes[0]?.text).toMatch(/^This methodology applies/);
    const titled = findEvidence(question, vm0001, { titles });
    expect(titled.quotes[0]?.text).toMatch(/^However, consistent with conflict of interest concerns/);
    expect(titled.answered).toBe(true);
    // A question about the document's subject that it does not answer: its title's words still count for the
    // verdict, so the subject words alone do not make it answered (nor more answered than without the title).
    const unanswered = 'What price did the supermarket pay for the infra-red refrigerant leak detection systems?';
    const without = findEvidence(unanswered, vm0001);
    const withTitles = findEvidence(unanswered, vm0001, { titles });
    expect(withTitles.support).toBeCloseTo(without.support, 6);
    expect(withTitles.answered).toBe(without.answered);
  });

  it('leaves out the words that name where to look, not the common words a title happens to hold', () => {
    const scope = [
      'CDM_GFL-HFC23_registration_request_form.pdf',
      'Validation Report',
      'Project for GHG Emission Reduction by Thermal Oxidation of HFC 23',
      'Gujarat, India',
    ];
    const question = 'How many clarification requests did the validation of the Gujarat HFC-23 thermal oxidation project generate?';
    const named = scopeTerms(question, scope);
    // Names, runs of words that stand together in one scope text, and "project".
    for (const w of ['Gujarat', 'HFC-23', 'thermal', 'oxidation', 'project']) expect(named.has(evidenceTerms(w)[0] ?? '')).toBe(true);
    // "requests" is asked for (a title merely holds "request"); "validation" alone names no document here.
    for (const w of ['clarification', 'requests', 'validation']) expect(named.has(evidenceTerms(w)[0] ?? '')).toBe(false);
    // "validation report" together names the document type.
    const report = scopeTerms("What does DNV's validation report of the Eastern Plains project estimate?", [
      'Validation Report',
      'CDM Project for Forestry Restoration in Productive and Biological Corridors in the Eastern Plains of Colombia',
    ]);
    expect([...report].sort()).toEqual(['eastern', 'plain', 'project', 'report', 'validation'].map((w) => evidenceTerms(w)[0]).sort());
    expect(scopeTerms('Which project is it?', [])).toEqual(new Set());
    // A name's gloss in brackets names it again; brackets with a figure qualify it ("(August 2011)").
    const glossed = scopeTerms('In VM0005 (conversion of low-productive forest), what determines the leakage factor?', [
      'methodology_VM0005.pdf',
    ]);
    for (const w of ['VM0005', 'conversion', 'low-productive', 'forest']) expect(glossed.has(evidenceTerms(w)[0] ?? '')).toBe(true);
    expect(glossed.has(evidenceTerms('leakage')[0] ?? '')).toBe(false);
    const dated = scopeTerms('What errors were corrected in version 1.1 of VM0005 (August 2011)?', ['methodology_VM0005.pdf']);
    expect([...dated]).toEqual(['vm0005']);
    // A compound names a text that holds all its parts ("HFC-23" in "HFC 23"), not one ("low-productive" in
    // "Productive"); a short number is any number ("5 June" is not the 5 of "v1.5.1").
    const name = ['CDM Project for Forestry Restoration in Productive and Biological Corridors', 'Credit Class v1.5.1'].map(scopeTextTerms);
    expect(questionNamer('Which forests qualify for the low-productive to high-productive conversion?')(name).size).toBe(0);
    expect(questionNamer('Why was the meeting held on 5 June?')(name).size).toBe(0);
    expect(questionNamer('Which HFC-23 plant is it?')([scopeTextTerms('Thermal Oxidation of HFC 23')]).has('hfc-23')).toBe(true);

    const pages: EvidencePassage[] = [
      {
        id: 1,
        text:
          'Where SGS identified issues that needed clarification, a request for information was sent to GFL. ' +
          'The validation of the Project resulted in ten Clarification Requests. The validation team visited the plant.',
      },
      { id: 2, text: 'The registration request form was submitted by SGS on behalf of the project participants.' },
    ];
    const ev = findEvidence(question, pages, { scope });
    expect(ev.answered).toBe(true);
    expect(ev.quotes.find((q) => q.passageId === 1)?.text).toBe('The validation of the Project resulted in ten Clarification Requests.');
  });

  it('never quotes a title or form label that only repeats the question, but the sentence that answers it', () => {
    const form: EvidencePassage[] = [
      {
        id: 1,
        text:
          'Permanence Period\nThe Credit Class requires a 10-year permanence period, checked by a year-10 monitoring round. ' +
          'The permanence period for this project is 01/01/2033 to 31/12/2042.',
      },
      { id: 2, text: 'Carbon Accounting for Mosaic and\nLandscape-Scale REDD Projects' },
    ];
    const ev = findEvidence('What is the permanence period of the project?', form);
    // The title of passage 2 is not quoted at all; passage 1 is quoted by its sentence, not its field label.
    expect(ev.quotes.map((q) => [q.passageId, q.text])).toEqual([
      [1, 'The permanence period for this project is 01/01/2033 to 31/12/2042.'],
    ]);
  });

  it("never quotes a document's title with its version, unless the question asks which version", () => {
    const passages: EvidencePassage[] = [
      { id: 1, text: 'Methodology for Carbon Accounting for Mosaic and Landscape-scale REDD Projects Version 2.2' },
      { id: 2, text: 'Under this REDD methodology, degradation must have persisted for at least 3 years.' },
    ];
    const ev = findEvidence('In the mosaic and landscape-scale REDD methodology, how long must degradation persist?', passages);
    expect(ev.quotes.map((q) => q.passageId)).toEqual([2]);
    const version = findEvidence('Which version of the mosaic and landscape-scale REDD methodology is this?', passages);
    expect(version.quotes.find((q) => q.passageId === 1)?.text).toBe(passages[0]?.text);
    // A title page's copyright, with its title or alone, is not quoted either; a sentence about copyright is.
    const titlePage: EvidencePassage[] = [
      {
        id: 1,
        text: 'Methodology for Improved Forest Management: Conversion of Low- Productive to High-Productive Forest © 2013 Face the Future',
      },
      { id: 2, text: 'Copyright 2013 Face the Future Foundation' },
      { id: 3, text: 'Copyright of the forest management plans remains with the forest owners.' },
    ];
    const owned = findEvidence('Who holds the copyright of the forest management methodology?', titlePage);
    expect(owned.quotes.map((q) => q.passageId)).toEqual([3]);
  });

  it('prefers a sentence with a number when the question asks for a quantity or a date', () => {
    // Both sentences hold three of the question's words; the second gives the figure asked for.
    const text = 'The shift to a lower stratum is recorded. Such a shift must persist as degradation for at least 3 years.';
    const q = 'How long must a shift to a lower-carbon forest stratum persist to count as degradation?';
    expect(asksForNumber(q)).toBe(true);
    // (Quoted after the short sentence it refers back to: "Such a shift ...".)
    expect(findEvidence(q, [{ id: 1, text }]).quotes[0]?.text).toBe(text);
    expect(
      findEvidence(q.replace('How long must', 'For how long does'), [{ id: 1, text: text.replace('Such a shift', 'A shift') }]).quotes[0]
        ?.text,
    ).toBe('A shift must persist as degradation for at least 3 years.');
    // Asked without a quantity, the tie goes to the first sentence (the second joins it as its continuation).
    const plain = 'What must a shift to a lower-carbon forest stratum do to count as degradation?';
    expect(asksForNumber(plain)).toBe(false);
    expect(findEvidence(plain, [{ id: 1, text }]).quotes[0]?.text).toMatch(/^The shift to a lower stratum is recorded\./);
  });

  it('does not take the figures of a code or a formula name for the quantity asked for', () => {
    // The shape of dev-064's SGS validation report: both sentences hold the question's words; the first one's only
    // figures are those of the HCFC22 plant's name.
    const text = 'The new unit is expected to be installed at the HCFC22 plant. The new unit is expected to be installed during 2004.';
    const q = 'When was the new unit expected to be installed?';
    expect(findEvidence(q, [{ id: 1, text }]).quotes[0]?.text).toBe('The new unit is expected to be installed during 2004.');
    // A figure standing as a number of its own still counts, whatever follows it (5 years, 2.5%, 120 tCO2e).
    const units = 'The unit was installed at the plant. The unit was installed within 5 years.';
    expect(findEvidence('How long did it take until the unit was installed?', [{ id: 1, text: units }]).quotes[0]?.text).toBe(
      'The unit was installed within 5 years.',
    );
  });

  it('never quotes a formula whose symbols extraction left as mathematical letters', () => {
    // U+1D400-U+1D7FF italic letters, doubled by extraction, as in the wood-product equations of VM0005 (dev-048).
    const formula =
      '\u{1D456}\u{1D456}\u{1D450}\u{1D450}(\u{1D460}\u{1D460}\u{1D452}\u{1D452}) = Fraction of carbon emitted for wood class \u{1D460}\u{1D460}\u{1D452}\u{1D452}.';
    const prose = 'The fraction of sawnwood carbon oxidised between 5 and 100 years is 0.84 in the tropics.';
    const ev = findEvidence('What fraction of sawnwood carbon is emitted for the wood class?', [
      { id: 1, text: formula },
      { id: 2, text: prose },
    ]);
    expect(ev.quotes.map((q) => q.passageId)).toEqual([2]);
  });

  it('judges `answered` on the question words, not on the figure the answer type chose', () => {
    const text = 'A shift to a lower stratum of the forest is recorded. Such a shift must persist for at least 3 years.';
    const ev = findEvidence('How long must a shift to a lower-carbon forest stratum persist to count as degradation?', [{ id: 1, text }], {
      minSupport: 0.35,
    });
    // The quote is led by the sentence with the figure (after the one it refers back to, whose words do not count),
    // which holds few of the question's words ...
    expect(ev.quotes[0]?.text).toMatch(/Such a shift must persist for at least 3 years\.$/u);
    expect(ev.quotes[0]?.coverage).toBeLessThan(0.25);
    // ... but the support is that of the quote the words alone choose (both sentences): answered.
    expect(ev.support).toBeGreaterThan(0.35);
    expect(ev.answered).toBe(true);
  });

  it('knows a question that asks for a number, in figures or words, from one that does not', () => {
    for (const q of [
      'How many hectares will the project plant?',
      'When was the baseline sampled?',
      'What percentage was assigned to the buffer?',
      'Which years may be used as the baseline period?',
      'What rainfall level characterizes the forests?',
      'How soon must the clearing happen (not the harvest)?',
      // The asked-for quantity may be named by a compound: "what <validation opinion> number", "what <revised
      // validation opinion> date".
      'What validation opinion number did SGS give?',
      'What revised validation opinion date appears in the form?',
    ]) {
      expect(asksForNumber(q), q).toBe(true);
    }
    for (const q of [
      'Who prepared VM0005?',
      'What does Peat Depletion Time mean?',
      'Why was the meeting held on 5 June?',
      'Which land is excluded (not how many hectares)?',
      'What benchmark did the PDD use in its investment analysis?',
      'Which of the project documents names the total?',
    ]) {
      expect(asksForNumber(q), q).toBe(false);
    }
  });

  it('gives no quote and no answer without passages or question words', () => {
    expect(findEvidence('anything', [])).toEqual({ quotes: [], answered: false, support: 0 });
    expect(findEvidence('what is the', passages).answered).toBe(false);
  });
});

describe('composeAnswer asked of each project (ComposeOptions.eachProject)', () => {
  const quote = (passageId: number, text: string, score: number) => ({ passageId, start: 0, end: text.length, text, coverage: 0.5, score });
  const passages: EvidencePassage[] = [
    { id: 1, text: 'Ecometric Ltd is the project proponent of the first farm.', project: 'Regen 6006' },
    { id: 2, text: 'The first farm rotates wheat, barley and beans on its fields.', project: 'Regen 6006' },
    { id: 3, text: 'Ecometric Ltd is the project proponent of the second farm.', project: 'Regen 6007' },
    { id: 4, text: 'Hexa Carbon One Private Limited is the project proponent.', project: 'Verra 5533' },
  ];
  const evidence = {
    quotes: [
      quote(1, passages[0]!.text, 0.9),
      quote(2, passages[1]!.text, 0.85),
      quote(3, passages[2]!.text, 0.6),
      quote(4, passages[3]!.text, 0.3),
    ],
    answered: true,
    support: 0.9,
  };
  it("gives each project's best quote before any project's second, and keeps the same words from two projects", () => {
    const each = composeAnswer(evidence, passages, { eachProject: true });
    expect(each.indexOf('Regen 6006: Ecometric')).toBeLessThan(each.indexOf('Regen 6007: Ecometric'));
    expect(each.indexOf('Regen 6007: Ecometric')).toBeLessThan(each.indexOf('Verra 5533: Hexa'));
    expect(each.indexOf('Verra 5533: Hexa')).toBeLessThan(each.indexOf('Regen 6006: The first farm rotates'));
    // By score alone, the repeated words of the second farm are left out and the last quote falls below half the best.
    const byScore = composeAnswer(evidence, passages);
    expect(byScore).not.toContain('Regen 6007');
    expect(byScore).not.toContain('Verra 5533');
  });
});

describe("findEvidence with what a project's record states (EvidencePassage.expected)", () => {
  const mentions =
    'The project proponent shall monitor the plantations every year. The project proponent must keep the records ' +
    'of each monitoring round for two years after the end of the crediting period.';
  const names = 'Greenleaf Carbon Partners Ltd develops the project together with the farmer cooperatives of the district.';
  const passagesOf = (expected?: string[]): EvidencePassage[] => [
    { id: 1, text: mentions, score: 0.9, ...(expected ? { expected } : {}) },
    { id: 2, text: names, score: 0.5, ...(expected ? { expected } : {}) },
  ];

  it('quotes the sentence that names the proponent the record names, not those that say "the project proponent"', () => {
    const question = 'Who is the project proponent?';
    const without = findEvidence(question, passagesOf());
    const best = (ev: ReturnType<typeof findEvidence>) => [...ev.quotes].sort((a, b) => b.score - a.score)[0];
    expect(best(without)?.passageId).toBe(1);
    const withRecord = findEvidence(question, passagesOf(['Greenleaf Carbon Partners Ltd']));
    expect(best(withRecord)?.passageId).toBe(2);
    expect(best(withRecord)?.text).toBe(names);
    expect(withRecord.answered).toBe(true);
  });

  it('finds a code written apart and a figure with its thousands separated, but not a longer code', () => {
    const text =
      'The methodology AR-AM0001 is referenced for comparison only. The methodology AM 0001, applied to this project, ' +
      'has its category 11. The annual average removal is estimated at 26,752 tCO2e.';
    const passage = (expected: string[]): EvidencePassage[] => [{ id: 1, text, score: 0.5, expected }];
    expect(findEvidence('What methodology does the project apply?', passage(['AM0001'])).quotes[0]?.text).toBe(
      'The methodology AM 0001, applied to this project, has its category 11.',
    );
    // (The next sentence, which holds the question's words too, may be taken along; the quote is led by this one.)
    expect(findEvidence('What methodology does the project apply?', passage(['AR-AM0001'])).quotes[0]?.text).toMatch(
      /^The methodology AR-AM0001 is referenced for comparison only\./,
    );
    expect(findEvidence('How many tonnes of CO2e does the project remove per year?', passage(['26752'])).quotes[0]?.text).toBe(
      'The annual average removal is estimated at 26,752 tCO2e.',
    );
  });
});

describe('composeAnswer', () => {
  it('puts the best quote first, whole sentences each followed by its marker, within the budget', () => {
    const ev = findEvidence('What is the annual average carbon removal?', passages);
    const answer = composeAnswer(ev, passages, { maxChars: 600 });
    expect(answer.startsWith('The annual average carbon removal is estimated at 26,752 tCO2e [2].')).toBe(true);
    expect(answer.length).toBeLessThanOrEqual(600);
    expect(answer).not.toMatch(/\uf0b7/);
  });

  it('leaves out a quote that repeats a kept one, and cites its passage beside it when it states the same', () => {
    const twins: EvidencePassage[] = [
      { id: 1, text: 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042.' },
      { id: 2, text: 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042. Nothing else.' },
    ];
    const answer = composeAnswer(findEvidence('What is the crediting period?', twins), twins);
    expect(answer).toBe('The crediting period is 20 years, from 15/07/2022 to 14/07/2042 [1][2].');
    // A plan's "will be" and a report's "was" state the same; the markers run in order whichever scored first.
    const tenses: EvidencePassage[] = [
      { id: 1, text: 'Laboratory analysis will be conducted by a laboratory meeting BS EN ISO/IEC 17025.', score: 0.2 },
      { id: 2, text: 'Laboratory analysis was conducted by a laboratory meeting BS EN ISO/IEC 17025.', score: 0.9 },
    ];
    expect(composeAnswer(findEvidence('Which standard must the laboratory meet?', tenses), tenses)).toBe(
      'Laboratory analysis was conducted by a laboratory meeting BS EN ISO/IEC 17025 [1][2].',
    );
  });

  it('keeps two quotes of the same words as two facts only when the second gives figures the first does not', () => {
    // [question, the better quote, the other, the answer]
    const cases: [string, string, string, string][] = [
      [
        'What net GHG removal per hectare does the project expect?',
        'The project expects to achieve a net GHG removal per annum of 7-10 tCO2e per ha.',
        'The project expects to achieve a net GHG removal per annum of 5-10 tCO2e per ha.',
        'The project expects to achieve a net GHG removal per annum of 7-10 tCO2e per ha [1]. ' +
          'The project expects to achieve a net GHG removal per annum of 5-10 tCO2e per ha [2].',
      ],
      // A quote that gives a figure or a code where the kept piece gives none says more than the piece.
      [
        'Which satellite imagery gives the predictors?',
        'The predictors were the pixel values from multispectral satellite imagery.',
        'The predictors were the Sentinel-2 multispectral pixel values from satellite imagery.',
        'The predictors were the pixel values from multispectral satellite imagery [1]. ' +
          'The predictors were the Sentinel-2 multispectral pixel values from satellite imagery [2].',
      ],
      // Without one, the same words are a repeat (and its passage is cited beside the kept piece).
      [
        'Which satellite imagery gives the predictors?',
        'The predictors were the pixel values from multispectral satellite imagery.',
        'The predictors were the multispectral pixel values of satellite imagery.',
        'The predictors were the pixel values from multispectral satellite imagery [1][2].',
      ],
      // A quote that a kept one holds whole is no second fact, whatever figures the kept one adds.
      [
        'When will the planting be conducted?',
        'The planting will be conducted in 2006 and in 2007, on 4,000 ha in two cohorts.',
        'The planting will be conducted in 2006 and in 2007',
        'The planting will be conducted in 2006 and in 2007, on 4,000 ha in two cohorts [1].',
      ],
    ];
    for (const [question, first, second, answer] of cases) {
      const both: EvidencePassage[] = [
        { id: 1, text: first, score: 0.9 },
        { id: 2, text: second, score: 0.8 },
      ];
      expect(composeAnswer(findEvidence(question, both), both)).toBe(answer);
    }
  });

  it("states a quote's best sentence alone, in its place, when the whole quote does not fit the room left", () => {
    const passages: EvidencePassage[] = [
      {
        id: 1,
        text: 'The buffer pool contribution of the project is 20% of each credit issuance, as the credit class requires of every project registered under it, whatever its size, region or monitoring schedule.',
        score: 0.9,
      },
      {
        id: 2,
        text: 'The buffer pool contribution is split into two pools of 10% each. The buffer pool contribution to the permanence pool is held for twenty years and released in equal parts after each verification, provided no reversal of the soil carbon stock was reported in the period.',
        score: 0.8,
      },
      { id: 3, text: 'The registry holds the buffer pool contribution.', score: 0.7 },
    ];
    const evidence = findEvidence('What buffer pool contribution is required?', passages);
    const second = evidence.quotes.find((q) => q.passageId === 2);
    // The quote runs on into the next sentence; its best sentence is kept beside it, verbatim.
    expect(second?.text).toBe(passages[1]!.text);
    expect(second?.core).toBe('The buffer pool contribution is split into two pools of 10% each.');
    expect(composeAnswer(evidence, passages, { maxChars: 320 })).toBe(
      'The buffer pool contribution of the project is 20% of each credit issuance, as the credit class requires of every project registered under it, whatever its size, region or monitoring schedule [1]. ' +
        'The buffer pool contribution is split into two pools of 10% each [2]. The registry holds the buffer pool contribution [3].',
    );
    // With room for it, the quote is stated whole; a quote of one sentence has no separate best sentence.
    expect(composeAnswer(evidence, passages, { maxChars: 1000 })).toContain(`${passages[1]!.text.slice(0, -1)} [2].`);
    expect(evidence.quotes.find((q) => q.passageId === 1)?.core).toBeUndefined();
  });

  it("states a list's lead-in with its first line, running on, when the whole list does not fit", () => {
    // VM0001, page 6: the list is one span (no sentence ends in it); its lead-in and first item answer "which years".
    const list =
      'The baseline period will be either:\na) a period of three years prior to the installation of the IR equipment (year (x))\n' +
      'b) a three year consecutive period including the IR installation year (x)';
    const passages: EvidencePassage[] = [
      {
        id: 1,
        text: 'The baseline leak rate of the supermarket chain is the average leak rate of its stores over the baseline period, in percent of the refrigerant charge, for every store that has infrared leak detection installed.',
        score: 0.9,
      },
      { id: 2, text: list, score: 0.8 },
    ];
    const evidence = findEvidence('Which years may be used as the baseline period for the baseline leak rate?', passages);
    const quote = evidence.quotes.find((q) => q.passageId === 2);
    expect(quote?.text).toBe(list);
    expect(quote?.core).toBe(
      'The baseline period will be either:\na) a period of three years prior to the installation of the IR equipment (year (x))',
    );
    expect(composeAnswer(evidence, passages, { maxChars: 400 })).toMatch(
      / \[1\]\. The baseline period will be either: a\) a period of three years prior to the installation of the IR equipment \(year \(x\)\)\u2026 \[2\]\.$/u,
    );
  });

  it('does not cite a passage that only holds a kept piece among much else', () => {
    const passages: EvidencePassage[] = [
      { id: 1, text: 'The planting activity will be conducted from 2006 to 2007.', score: 0.9 },
      {
        id: 2,
        text: 'Detailed calculation of the planting schedule, survival checks and replanting of failed sites is summarised as follows: the planting activity is proposed to be conducted from 2006 to 2007.',
        score: 0.8,
      },
    ];
    const answer = composeAnswer(findEvidence('When will the planting activity be conducted?', passages), passages);
    expect(answer).toBe('The planting activity will be conducted from 2006 to 2007 [1].');
  });

  it('cites the same sentence of two projects apart, not as one piece', () => {
    const proponents: EvidencePassage[] = [
      { id: 1, text: 'The project proponent is Ecometric Ltd.', project: 'Regen 6006', score: 0.9 },
      { id: 2, text: 'The project proponent is Ecometric Ltd.', project: 'Regen 6007', score: 0.8 },
    ];
    const answer = composeAnswer(findEvidence('Who is the project proponent?', proponents), proponents);
    expect(answer).toBe('Regen 6006: The project proponent is Ecometric Ltd [1].');
    expect(composeAnswer(findEvidence('Who is the project proponent?', proponents), proponents, { eachProject: true })).toBe(
      'Regen 6006: The project proponent is Ecometric Ltd [1]. Regen 6007: The project proponent is Ecometric Ltd [2].',
    );
  });

  it('shows a quote that stops in the middle of a sentence as such', () => {
    // A form's lines are quoted in groups; the group may end where its sentence runs on.
    const form: EvidencePassage[] = [
      {
        id: 1,
        text: 'Prior to the first verification event the project area must be subject to an easement recorded against the deed of',
      },
    ];
    expect(composeAnswer(findEvidence('What must the project area be subject to before the first verification?', form), form)).toBe(
      'Prior to the first verification event the project area must be subject to an easement recorded against the deed of\u2026 [1].',
    );
    // Nor inside a bracket it opened (VM0007's list of modules, cut by its group of lines: "... activities (M-").
    const bracket: EvidencePassage[] = [
      { id: 1, text: 'Methods for monitoring of soil carbon stock changes in peatland rewetting and conservation project activities (M-' },
    ];
    expect(composeAnswer(findEvidence('Which module monitors soil carbon stock changes in peatland rewetting?', bracket), bracket)).toBe(
      'Methods for monitoring of soil carbon stock changes in peatland rewetting and conservation project activities (M-\u2026 [1].',
    );
    // A list's items, one per line after a bullet, read as a list (the GFL PDD, page 21); the quote stays verbatim.
    const bullets: EvidencePassage[] = [
      {
        id: 1,
        text: 'The incinerator design parameters are:\n• Thermal oxidation temperature ~ 1,200 0C\n• Gas residence time More than 2 seconds',
      },
    ];
    const listed = findEvidence('What are the incinerator design parameters?', bullets);
    expect(listed.quotes[0]?.text).toContain('\n• Gas residence time');
    expect(composeAnswer(listed, bullets)).toBe(
      'The incinerator design parameters are: Thermal oxidation temperature ~ 1,200 0C; Gas residence time More than 2 seconds [1].',
    );
    // Nor after a comma; but a name that ends in a capital letter ends its sentence.
    const list: EvidencePassage[] = [
      { id: 1, text: 'The harvest plan must consider harvest rotations,' },
      { id: 2, text: 'The data are listed in Appendix A' },
    ];
    const answer = composeAnswer(findEvidence('What must the harvest plan consider, and where are the data listed?', list), list);
    expect(answer).toContain('The harvest plan must consider harvest rotations\u2026 [1].');
    expect(answer).toContain('The data are listed in Appendix A [2].');
  });

  it('shows a quote that begins in the middle of a sentence as such', () => {
    const cut: EvidencePassage[] = [{ id: 1, text: 'uplift the area around the plant with a fund of Rs. 7 Crores for the community.' }];
    expect(composeAnswer(findEvidence('How large is the community fund around the plant?', cut), cut)).toBe(
      '\u2026uplift the area around the plant with a fund of Rs. 7 Crores for the community [1].',
    );
    // Also when it closes a bracket it never opened; a list item's "1)" is no such bracket.
    const bracket: EvidencePassage[] = [
      { id: 1, text: 'Reforestation and Revegetation) and has a crediting period of 30 years, from 2022 to 2051.' },
      { id: 2, text: '1) The crediting period of 30 years may be renewed twice.' },
    ];
    const answer = composeAnswer(findEvidence('What crediting period in years does it have?', bracket), bracket);
    expect(answer).toContain('\u2026Reforestation and Revegetation) and has a crediting period of 30 years, from 2022 to 2051 [1].');
    expect(answer).toContain(' 1) The crediting period of 30 years may be renewed twice [2].');
    // Nor is a list item's letter a cut ("d) In terms of the forestry land uses, ..." of the Guangxi PDD).
    const lettered: EvidencePassage[] = [{ id: 1, text: 'd) In terms of land use, the crediting period of 30 years is renewable.' }];
    expect(composeAnswer(findEvidence('What crediting period in years does it have?', lettered), lettered)).toBe(
      'd) In terms of land use, the crediting period of 30 years is renewable [1].',
    );
  });

  it('names the project of each piece when the passages come from several projects', () => {
    const two: EvidencePassage[] = [
      { id: 1, project: 'Verra 5533', text: 'The crediting period of the Purulia project is 20 years.' },
      { id: 2, project: 'CDM 9199', text: 'The crediting period of the Colombian project is 30 years, renewable.' },
    ];
    const answer = composeAnswer(findEvidence('What is the crediting period of each project?', two), two);
    expect(answer).toContain('Verra 5533: The crediting period of the Purulia project is 20 years [1].');
    expect(answer).toContain('CDM 9199: The crediting period of the Colombian project is 30 years, renewable [2].');
  });
});

describe('withMarker and leadSummary', () => {
  it('puts the marker inside the sentence, before its final punctuation', () => {
    expect(withMarker('It ends here.', 3)).toBe('It ends here [3].');
    expect(withMarker('It is said twice.', [5, 2, 5])).toBe('It is said twice [2][5].');
    // A sentence cut short keeps its ellipsis before the marker.
    expect(withMarker('It stops at the deed of\u2026', 4)).toBe('It stops at the deed of\u2026 [4].');
    // One that stops at its colon stops before what it announces (a list, a field's value, a formula left out).
    expect(withMarker('A list:', 2)).toBe('A list\u2026 [2].');
  });

  it('summarises by the leading sentences of the passages, in order', () => {
    expect(leadSummary(passages, 200)).toBe(
      'The baseline scenario is the continued degradation of the land under grazing. Table 4 shows the vintages of the project [1].',
    );
  });
});

describe('page furniture in quotes', () => {
  it('never quotes a running header, page number or leader line, even glued to a sentence', () => {
    const text = 'VCS Project Description Template, v4.4\n12\nThe project plants native species on degraded land.\nContents ......... 4';
    const running = new Set([lineShape('VCS Project Description Template, v4.4')]);
    const ev = findEvidence('Which species does the project plant on degraded land?', [{ id: 1, text, running }]);
    expect(ev.quotes[0]?.text).toBe('The project plants native species on degraded land.');
    // Without knowing the document's running lines, the header is glued to the sentence.
    const glued = findEvidence('Which species does the project plant on degraded land?', [{ id: 1, text: text.replace('\n12\n', '\n') }]);
    expect(glued.quotes[0]?.text).toContain('Template, v4.4');
  });

  it('never quotes the end of a running line that a passage starts with, nor the start of one it ends with', () => {
    // GFL's PDD: every page heads with a confidentiality notice over two lines, and a passage that starts at the
    // notice's second sentence starts in the middle of its first line.
    const notice = 'The information contained herein belongs exclusively to GFL. This information';
    const running = new Set([lineShape(notice), lineShape('shall not be shared without the prior written permission of GFL.')]);
    const candidates = (text: string, line?: LineContext): string[] => {
      const seen: string[] = [];
      findEvidence('Which information is logged?', [{ id: 1, text, running, ...(line ? { line } : {}) }], {
        onSentences: (sentences) => seen.push(...sentences.map((x) => x.text)),
      });
      return seen;
    };
    const starts =
      'This information\nshall not be shared without the prior written permission of GFL.\nThe oxidation information is logged daily.';
    expect(candidates(starts, { head: 'The information contained herein belongs exclusively to GFL. ', tail: '' })).toEqual([
      'The oxidation information is logged daily.',
    ]);
    // Read without the line's head, "This information" is a line of its own, not a running one.
    expect(candidates(starts)).toContain('This information');
    // A passage (a chunk) that ends at the notice's first sentence, in the middle of its line.
    const ends = 'The oxidation information is logged daily.\nThe information contained herein belongs exclusively to GFL.';
    expect(candidates(ends, { head: '', tail: ' This information' })).toEqual(['The oxidation information is logged daily.']);
    expect(candidates(ends)).toContain('The information contained herein belongs exclusively to GFL.');
  });

  it("reads a passage once for every question, read ahead or not, and by its own document's running lines", () => {
    const text =
      'VCS Project Description Template, v4.4\nThe project plants native species on degraded land. ' +
      'The crediting period is 30 years, from 1 January 2022 to 31 December 2051.';
    const running = new Set([lineShape('VCS Project Description Template, v4.4')]);
    const ask = (question: string, passage: EvidencePassage) => findEvidence(question, [passage]);
    const species = 'Which species does the project plant on degraded land?';
    const period = 'What is the crediting period?';
    // Read without running lines first, then with them: each reading is its own (the header is quoted only where
    // the document's running lines are unknown).
    expect(ask(species, { id: 1, text }).quotes[0]?.text).toContain('Template, v4.4');
    expect(ask(species, { id: 1, text, running }).quotes[0]?.text).toBe('The project plants native species on degraded land.');
    // Read ahead (as a search does while its query embeds), then asked: the same quotes, scores and verdicts as
    // for a passage read on the spot, question after question.
    const fresh = `${text} `;
    const onTheSpot = [species, period].map((q) => ask(q, { id: 1, text: fresh, running }));
    warmPassage({ text: `${text}  `, running });
    const ahead = [species, period].map((q) => ask(q, { id: 1, text: `${text}  `, running }));
    expect(ahead.map((e) => [e.answered, e.support, e.quotes.map((x) => [x.text, x.score, x.coverage])])).toEqual(
      onTheSpot.map((e) => [e.answered, e.support, e.quotes.map((x) => [x.text, x.score, x.coverage])]),
    );
    expect(ahead[1]?.quotes[0]?.text).toBe('The crediting period is 30 years, from 1 January 2022 to 31 December 2051.');
  });
});

describe("a validation report's references by number", () => {
  it('leaves out "/12/" and a protocol row\'s "/1/ DR", but not a source the sentence names by one; parts a glued number', () => {
    const answer = (question: string, text: string): string => {
      const p = [{ id: 3, score: 0.8, text }];
      return composeAnswer(findEvidence(question, p), p);
    };
    expect(
      answer(
        'Were stakeholders consulted in Vichada?',
        // (The row's number glued to its question, as extracted.)
        'F.1.1Have relevant stakeholders been consulted? /1/ DR They have been consulted in two meetings held in Vichada in 2004 /12/.',
      ),
    ).toBe('F.1.1 Have relevant stakeholders been consulted? They have been consulted in two meetings held in Vichada in 2004 [3].');
    expect(
      answer(
        'What is the carrying capacity of the region?',
        'The carrying capacity of the region is 0.39 head per ha on average, and is further corroborated by /37/.',
      ),
    ).toBe('The carrying capacity of the region is 0.39 head per ha on average, and is further corroborated by /37/ [3].');
  });
});

describe("a form's checkboxes", () => {
  const answer = (question: string, text: string): string => {
    const p = [{ id: 1, score: 0.8, text }];
    return composeAnswer(findEvidence(question, p), p);
  };

  it('read as the options ticked, a field on lines of its own ending there', () => {
    // VCS 5533's project description, pp. 8 and 47, as extracted.
    expect(
      answer(
        'What crediting period was selected?',
        'Crediting period ☐ Seven years, twice renewable\n☐ Ten years, fixed\n☒ Other (state the selected crediting period and justify how it\nconforms with the VCS Program requirements)',
      ),
    ).toBe(
      'Crediting period: Other (state the selected crediting period and justify how it conforms with the VCS Program requirements) [1].',
    );
    expect(
      answer(
        'Has the non-permanence risk report been attached?',
        'Has the non-permanence risk report been\nattached as either an appendix or a separate\ndocument?\n☒ Yes ☐ No\nFor ARR and IFM projects with harvesting,\nstate the Long-term Average (LTA).',
      ),
    ).toBe(
      'Has the non-permanence risk report been attached as either an appendix or a separate document? Yes. For ARR and IFM projects with harvesting, state the Long-term Average (LTA) [1].',
    );
  });

  it('end a field only where its ticked option is whole', () => {
    // The option runs on to a line that starts with a capital: no full stop inside its parenthesis.
    expect(
      answer(
        'Which crediting period was selected?',
        'Crediting period ☐ Ten years, fixed\n☒ Other (state the selected crediting period under the\nVCS Program requirements)',
      ),
    ).toBe('Crediting period: Other (state the selected crediting period under the VCS Program requirements) [1].');
  });

  it('are left as they are when none is ticked', () => {
    expect(answer('Is the project grouped?', 'Is the project a grouped project? ☐ Yes ☐ No')).toBe(
      'Is the project a grouped project? ☐ Yes ☐ No [1].',
    );
  });
});

describe('formulas garbled by extraction', () => {
  // VM0005 p. 22 as pdf.js extracts it: the equation's subscripts come out as letter fragments.
  const garbled =
    'For decomposition class 2, the biomass of standing dead trees is estimated as: dc DW ti sp l SDW ti sp l SDW ti sp l SDW D H BDia B , ,, ,, 2 ,, ,, ,, ,, 200 3';

  it('finds where the fragments start, and nothing in prose, readable formulas or author initials', () => {
    expect(garbledFrom(garbled)).toBe(garbled.indexOf('dc DW'));
    for (const text of [
      'The baseline scenario is the continued degradation of the land under grazing, as shown in the map of the area.',
      'LFME = 0.4 if C BSLpre = NCS (if C BSLpre ≤ NCS × 1.15 and ≥ NCS × 0.85) LF ME = 0.7 if C BSLpre < NCS × 0.85',
      'Chambers, J, Higuchi, N, Schimel, J. P., Ferreira, L. V., Melack, J. M. 2000. Decomposition and carbon cycling of dead trees.',
      'The stock is 12 t C per ha in 2 of the 3 strata, or 36 t in all, as of 1 May 2020 in the UK.',
    ]) {
      expect(garbledFrom(text)).toBeNull();
    }
    // A formula alone is left to `quotable`: no words come before it to quote.
    expect(garbledFrom('dc DW ti sp l SDW ti sp l SDW ti sp l SDW D H BDia B')).toBeNull();
  });

  it('quotes the words before such a formula, and the answer says the quote stops there', () => {
    const evidence = findEvidence('How is the biomass of standing dead trees in decomposition class 2 estimated?', [
      { id: 1, score: 0.8, text: `Standing dead wood. ${garbled}` },
    ]);
    const quote = evidence.quotes[0];
    expect(quote?.text).toBe('For decomposition class 2, the biomass of standing dead trees is estimated as:');
    expect(composeAnswer(evidence, [{ id: 1, score: 0.8, text: `Standing dead wood. ${garbled}` }])).toBe(
      'For decomposition class 2, the biomass of standing dead trees is estimated as\u2026 [1].',
    );
  });

  it('leaves out a list marker the passage ends on without its item', () => {
    // VM0005 p. 12: the page window stops after the first item's letter.
    const text =
      'If emissions due to avoided timber harvesting in the baseline are determined based on activity levels in\na reference area, ' +
      'project proponents must demonstrate that the quantification of avoided emissions in\nthe with-project scenario is taking into account:\na.';
    const evidence = findEvidence('What must the quantification of avoided emissions in the with-project scenario take into account?', [
      { id: 5, score: 0.8, text },
    ]);
    expect(evidence.quotes[0]?.text.endsWith('is taking into account:')).toBe(true);
    expect(composeAnswer(evidence, [{ id: 5, score: 0.8, text }])).toMatch(/ is taking into account\u2026 \[5\]\.$/u);
  });
});
