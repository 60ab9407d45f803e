import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfPages } from '../../../ingest/stages/extract.js';
import { candidatesOf, garbledFrom, readable } from '../../../src/domain/answer/candidates.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';
import { isRunningLine, runningLineShapes } from '../../../src/domain/page-furniture.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

const texts = (text: string, running: ReadonlySet<string> = new Set()) =>
  candidatesOf({ id: 1, text, running }, ANSWER_TUNING).map((c) => c.text);

describe('candidatesOf', () => {
  it('gives the sentences of a passage with their offsets, headings left out', () => {
    const text =
      '1.3 Project Proponent\nThe project proponent is Gujarat Fluorochemicals Limited. It operates the HCFC-22 plant at Ranjitnagar.';
    const cands = candidatesOf({ id: 7, text }, ANSWER_TUNING);
    expect(cands.map((c) => c.text)).toEqual([
      'The project proponent is Gujarat Fluorochemicals Limited.',
      'It operates the HCFC-22 plant at Ranjitnagar.',
    ]);
    for (const c of cands) {
      expect(text.slice(c.start, c.end)).toBe(c.text);
      expect(c.passageId).toBe(7);
    }
    expect(cands[1]?.terms).toEqual(['operat', 'hcfc-22', 'plant', 'ranjitnagar']);
  });

  it("never quotes a document's running lines, page numbers or contents leaders", () => {
    const blocks = 'alder birch cedar dogwood elm fir ginkgo hazel ironwood juniper kapok larch'.split(' ');
    const body = (i: number): string => (i === 0 ? 'The forest covers 200 ha of the estate.' : `The ${blocks[i]} block is planted.`);
    const pages = Array.from({ length: 12 }, (_, i) => `Project Description: VCS Version 4.0\n${body(i)}\nPage ${i + 1} of 12`);
    const running = runningLineShapes(pages);
    const got = texts(`${pages[0]}\n3.4 Baseline scenario ........................ 43`, running);
    expect(got).toEqual(['The forest covers 200 ha of the estate.']);
  });

  it("cuts a long table or form run together into groups of lines, and a whole sentence after a table's rows stands alone", () => {
    const rows = Array.from({ length: 12 }, (_, i) => `Stream ${i + 1} flow rate and oxidation information recorded`).join('\n');
    const fact = 'Oxidation information is logged every hour by the plant operators.';
    const got = texts(`${rows}\n${fact}`);
    expect(got).toContain(fact);
    expect(got.every((g) => g.length <= ANSWER_TUNING.lineGroupChars)).toBe(true);
  });

  it('keeps wrapped prose whole however long, and stops a sentence where a formula garbled by extraction starts', () => {
    const prose =
      'The project will increase forest resources in the project area, improve the local environment and the quality of the\n' +
      'soil and water, provide employment for the rural population in the area during the planting and tending of the trees,\n' +
      'and increase the income of local farmers, who will receive a share of the revenue from timber and carbon credits.';
    expect(texts(prose)).toEqual([prose]);
    const garbled = 'The carbon stock in dead wood is estimated as follows dc DW ti sp l SDW ti sp l SDW D H BDia B';
    expect(garbledFrom(garbled)).toBe(garbled.indexOf('dc DW'));
    expect(texts(garbled)).toEqual(['The carbon stock in dead wood is estimated as follows']);
  });

  it('counts as fragments lone letters and unknown two-letter words, trimmed of punctuation, but not initials or longer words', () => {
    const lead = 'The baseline emissions of the project are calculated with';
    // Punctuation around a fragment is trimmed; "a", "I", "of" and an initial ("J.") are words, not fragments.
    expect(garbledFrom(`${lead} (dc), DW; ti sp l. SDW ti sp`)).toBe(lead.length + 1);
    expect(garbledFrom(`${lead} a I of J. dc ti sp l`)).toBeNull();
    // Six fragments must fall within eight words in a row.
    expect(garbledFrom(`${lead} dc ti sp wood soil stock DW l SDW ti`)).toBeNull();
    // Fewer than 20 letters before it: the text is the formula.
    expect(garbledFrom('Where dc DW ti sp l SDW ti sp l')).toBeNull();
    // A mathematical italic letter pair is two lower-case letters too.
    expect(garbledFrom(`${lead} \u{1D465}\u{1D466} ti sp l dc DW ti`)).toBe(lead.length + 1);
  });

  it("keeps what it read of a passage in the passage's readings, and reads it again only for other text or tuning", () => {
    const readings = new Map();
    const text = 'The project proponent is Gujarat Fluorochemicals Limited. It operates the HCFC-22 plant at Ranjitnagar.';
    const first = candidatesOf({ id: 1, text, readings }, ANSWER_TUNING);
    expect(readings.size).toBe(1);
    const again = candidatesOf({ id: 4, text, readings }, ANSWER_TUNING);
    expect(readings.size).toBe(1);
    // The same reading, as the candidates of the passage asked for.
    expect(again).toEqual(first.map((c) => ({ ...c, passageId: 4 })));
    expect(again[0]?.terms).toBe(first[0]?.terms);
    expect(candidatesOf({ id: 4, text, readings }, { ...ANSWER_TUNING, lineGroupChars: 100 })).toEqual(again);
    expect(readings.size).toBe(2);
    candidatesOf({ id: 4, text, readings, line: { head: 'See ', tail: '' } }, ANSWER_TUNING);
    expect(readings.size).toBe(3);
  });
});

describe('readable', () => {
  it('takes sentences of words, not titles, table rows or glyph runs', () => {
    expect(readable('The validation raised three corrective action requests.')).toBe(true);
    expect(readable('Methodology For Carbon Accounting For Mosaic Projects')).toBe(false);
    expect(readable('2019 12,450 1,200 11,250 2020 12,450 1,200 11,250')).toBe(false);
    expect(readable('\uF0B7\uF0B7\uF0B7 carbon stock \uF0B7 tonnes')).toBe(false);
    expect(readable('Emission factors are taken from IPCC [12] guidance.')).toBe(true);
  });
});

describeWithService('candidatesOf on a real registry PDF', { available: corpusAvailable, why: 'corpus not found' }, () => {
  it('gives verbatim, readable pieces of every page, none of them a running line', async () => {
    const pdf = readFileSync(corpusPath('pdf', 'CDM_GFL-HFC23_validation_report.pdf'));
    const extracted = await extractPdfPages(new Uint8Array(pdf));
    if (!extracted.ok) throw new Error(extracted.reason);
    const { pages } = extracted;
    const running = runningLineShapes(pages);
    let total = 0;
    pages.forEach((page, i) => {
      for (const c of candidatesOf({ id: i + 1, text: page, running }, ANSWER_TUNING)) {
        total++;
        expect(page.slice(c.start, c.end)).toBe(c.text);
        expect(readable(c.text)).toBe(true);
        for (const line of c.text.split('\n')) expect(isRunningLine(line, running)).toBe(false);
      }
    });
    expect(total).toBeGreaterThan(100);
  }, 180_000);
});
