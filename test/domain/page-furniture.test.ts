import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkTokenBudget } from '../../ingest/stages/chunk.js';
import { extractPdfPages } from '../../ingest/stages/extract.js';
import { chunkPage } from '../../src/domain/chunking.js';
import {
  contentsRuns,
  isContentsText,
  isLeaderLine,
  isPageNumberLine,
  lineShape,
  runningLineShapes,
  stripPageFurniture,
  withoutFurniture,
} from '../../src/domain/page-furniture.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

const page = (n: number, body: string): string =>
  ['ACME Carbon Ltd', 'Project Description: VCS Version 4.0', body, `Page ${n} of 12`, 'Confidential draft'].join('\n');

describe('page furniture lines', () => {
  it('recognises page numbers on their own line, not headings that start with a number', () => {
    for (const l of ['12', '- 12 -', 'Page 3', 'Page 3 of 40', '3 | Page', 'Page | 3', 'p. 7', 'iv'])
      expect(isPageNumberLine(l)).toBe(true);
    for (const l of ['3 Results', '2021 27,769', 'Page three of the report', 'Table 3']) expect(isPageNumberLine(l)).toBe(false);
  });

  it('recognises dot leaders and rules, not prose with an ellipsis or decimals', () => {
    expect(isLeaderLine('3.4 Baseline Scenario ........................ 43')).toBe(true);
    expect(isLeaderLine('1.11. Project Area . . . . . . . . . . . 6')).toBe(true);
    expect(isLeaderLine('____________________')).toBe(true);
    expect(isLeaderLine('The period is 40 years... as stated in 1.2.3.')).toBe(false);
  });

  it('compares lines across pages with digits and spacing folded', () => {
    expect(lineShape('Page  3 of 40 ')).toBe(lineShape('page 4 of 41'));
  });
});

describe('stripPageFurniture', () => {
  const bodies = ['Alder', 'Birch', 'Cedar', 'Douglas fir', 'Elm', 'Fig', 'Ginkgo', 'Hazel', 'Ironwood', 'Juniper', 'Kapok', 'Larch'];
  const lines = (tree: string, from: number): string[] =>
    Array.from({ length: 9 }, (_, k) => `${tree} line ${String.fromCharCode(97 + from + k)}.`);
  const body = (tree: string): string => [...lines(tree, 0), 'ACME Carbon Ltd plants trees.', ...lines(tree, 9)].join('\n');
  const pages = bodies.map((tree, i) => page(i + 1, body(tree)));

  it('finds the lines that run across the pages at their top and bottom', () => {
    const shapes = runningLineShapes(pages);
    expect(shapes.has('acme carbon ltd')).toBe(true);
    expect(shapes.has('confidential draft')).toBe(true);
    expect(shapes.has(lineShape('Page 1 of 12'))).toBe(true);
  });

  it('peels them from each page, keeping the body and the same words inside it', () => {
    const out = stripPageFurniture(pages);
    expect(out).toHaveLength(12);
    expect(out[4]).toBe(body('Elm'));
  });

  it('leaves a short document (fewer than four pages sharing a line) alone, except page numbers and leaders', () => {
    const two = ['Table 1 Emissions\nYear 2021 120\n1', 'Table 1 Emissions\nYear 2022 130\n2'];
    expect(stripPageFurniture(two)).toEqual(['Table 1 Emissions\nYear 2021 120', 'Table 1 Emissions\nYear 2022 130']);
  });

  it('removes contents leaders anywhere on a page', () => {
    expect(withoutFurniture('CONTENTS\n1 Project details ............ 4\n1.1 Summary ............ 4\nText follows.', new Set())).toBe(
      'CONTENTS\nText follows.',
    );
  });
});

describe('contentsRuns', () => {
  const lists = [
    'iv',
    'List of Tables',
    'Table 1: SOC Results .................................... 2',
    'Table 2: Carbon Balance ................................ 4',
    'List of Figures',
    'Figure 1 - Project SOCS ................................ ii',
    'Figure 2 - Monitoring Period Net SOCS Change ........... ii',
  ].join('\n');
  const glossary = 'List of Terms\nSoil Organic Carbon\nSoil Organic Carbon (SOC) is the organic carbon component of the soil.';

  it('finds a list of tables and figures with the short lines that head it, and ends it at its last entry', () => {
    const page = `${lists}\n${glossary}`;
    expect(contentsRuns(page)).toEqual([{ start: 0, end: lists.length }]);
    const after = `The report is organised as follows.\n${lists}`;
    expect(contentsRuns(after)).toEqual([{ start: after.indexOf('iv'), end: after.length }]);
  });

  it('takes outline entries without leaders between entries with them into one run', () => {
    const contents = [
      'Table of Contents',
      '1 INTRODUCTION ............................................ 3',
      '1.1 Objective 3',
      '1.2 Scope 3',
      '1.3 GHG Project Description 5',
      '1.4 Validation team 5',
      '2 METHODOLOGY ............................................. 8',
    ].join('\n');
    const page = `Project No: CDM.Val0018\nPage 2\nReference to part of this report which may lead to misinterpretation.\n${contents}`;
    expect(contentsRuns(page)).toEqual([{ start: page.indexOf('Table of Contents'), end: page.length }]);
  });

  it('finds none in prose, under one leader line, or in rules', () => {
    expect(contentsRuns(glossary)).toEqual([]);
    expect(contentsRuns('Contents ........ 3\nThe project is located in England.')).toEqual([]);
    expect(contentsRuns('Signed ____________\nDate ____________\nThe validator')).toEqual([]);
  });
});

describe('isContentsText', () => {
  it('recognises a table of contents by its leaders, or by numbered headings ending in page numbers', () => {
    const leaders = [
      '1.9. Project Crediting Period ..................... 5',
      '1.10. Permanence Period ........... 5',
      '1.11. Project Area . . . . . . . . 6',
    ];
    expect(isContentsText(leaders.join('\n'))).toBe(true);
    const plain = [
      'CONTENTS',
      '1 Project Details 4',
      '1.1 Summary Description of the Project 4',
      '1.2 Audit History 5',
      '2 Safeguards 20',
      '2.1 No Net Harm 20',
      '3 Application of Methodology 25',
    ];
    expect(isContentsText(plain.join('\n'))).toBe(true);
  });

  it("takes a piece of a list of tables with its heading, or an entry cut by the chunk's end, for contents", () => {
    expect(
      isContentsText('iv\nList of Tables\nTable 1: SOC Results .................. 2\nTable 2: Carbon Balance ........ 4\nTable 3:'),
    ).toBe(true);
    expect(isContentsText('List of Terms\nSoil Organic Carbon\nSoil Organic Carbon (SOC) is the organic carbon of the soil.')).toBe(false);
    expect(isContentsText('Signature ____________\nName of the validator\nDate')).toBe(false);
  });

  it('does not flag prose, a single leader line or numbered decimals', () => {
    expect(isContentsText('The permanence period is 40 years... as stated in section 1.10 on page 5.')).toBe(false);
    expect(isContentsText('Contents ........ 3\nThe project is located in England.')).toBe(false);
    expect(isContentsText('Values 1.2.3.4.5.6 and 0.5, 0.6, 0.7 tCO2e.')).toBe(false);
  });
});

describeWithService('page furniture of the corpus PDFs', { available: corpusAvailable, why: 'corpus not found' }, () => {
  let gfl: string[] = [];
  let vcs: string[] = [];
  beforeAll(async () => {
    const read = async (f: string): Promise<string[]> => {
      const r = await extractPdfPages(new Uint8Array(readFileSync(corpusPath('pdf', f))));
      if (!r.ok) throw new Error(`${f}: ${r.reason}`);
      return r.pages;
    };
    gfl = await read('CDM_GFL-HFC23_project_design_document.pdf');
    vcs = await read('VCS5533_project_description.pdf');
  }, 60_000);

  it('removes the GFL confidentiality notice and running title from every page, and nothing else of the body', () => {
    const out = stripPageFurniture(gfl);
    const notice = /belongs exclusively to GFL|shall not be shared with or disclosed/;
    expect(gfl.filter((p) => notice.test(p)).length).toBeGreaterThan(80);
    expect(out.filter((p) => notice.test(p))).toEqual([]);
    expect(out.filter((p) => p.startsWith('GUJARAT FLUOROCHEMICALS LIMITED'))).toEqual([]);
    // The company is still named where the text names it.
    expect(out.join('\n')).toMatch(/Gujarat Fluorochemicals/);
  });

  it('removes the template footer and page numbers of the VCS project description, and its contents leaders', () => {
    const out = stripPageFurniture(vcs);
    expect(vcs.filter((p) => /VCS Project Description Template, v4\.\d/.test(p)).length).toBeGreaterThan(50);
    expect(out.filter((p) => /VCS Project Description Template, v4\.\d/.test(p))).toEqual([]);
    expect(out[3]?.startsWith('1 PROJECT DETAILS\n1.1 Summary Description of the Project')).toBe(true);
    expect(isContentsText(vcs[1] ?? '')).toBe(true);
    expect(out[1]).not.toMatch(/\.{5,}/);
  });

  it('takes every chunk of a contents page for contents, as ingest cuts it, and no chunk of the body', async () => {
    // Leader lines are long, so a chunk of a contents page holds two or three entries: the page's chunks must be
    // demoted one by one (USE's budget of 254 tokens, the default embedder's).
    const read = async (f: string): Promise<string[]> => {
      const r = await extractPdfPages(new Uint8Array(readFileSync(corpusPath('pdf', f))));
      if (!r.ok) throw new Error(`${f}: ${r.reason}`);
      return r.pages;
    };
    const fonthill = await read('REGEN_fonthill_farms_project_plan.pdf');
    const vm0007 = await read('methodology_VM0007.pdf');
    const opts = { maxTokens: chunkTokenBudget(256) };
    for (const [doc, pageNo] of [
      [fonthill, 2],
      [vm0007, 3],
      [vcs, 2],
    ] as const) {
      const chunks = chunkPage(doc[pageNo - 1] ?? '', pageNo, opts);
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.filter((c) => !isContentsText(c.text)).map((c) => c.text)).toEqual([]);
    }
    // The body of the same documents: pages of prose, tables and forms.
    for (const doc of [fonthill, vm0007, vcs]) {
      const body = doc.slice(6, 40).flatMap((p, i) => chunkPage(p, i + 7, opts));
      expect(body.length).toBeGreaterThan(60);
      expect(body.filter((c) => isContentsText(c.text)).map((c) => c.text)).toEqual([]);
    }
  }, 60_000);
});

describe('isContentsText on lists that are not contents', () => {
  it('does not take a numbered list of requirements or a table of numbered rows for contents', () => {
    const requirements = [
      '1. The project area must be degraded land;',
      '2. The project must not drain peatland;',
      '3. Trees are planted by the communities;',
      '4. Leakage is accounted for;',
      '5. Monitoring follows section 4.',
    ];
    expect(isContentsText(requirements.join('\n'))).toBe(false);
    const rows = ['1 Eucalyptus 2019 150', '2 Acacia 2019 120', '3 Pinus 2020 90', '4 Cunninghamia 2020 80', '5 Schima 2021 40'];
    expect(isContentsText(rows.join('\n'))).toBe(false);
  });

  it('takes an outline without page numbers (CDM PDD style) for contents', () => {
    const outline = [
      'SECTION A. General description of the proposed A/R CDM project activity',
      'B. Duration of the project activity / Crediting period',
      'C. Application of an approved baseline and monitoring methodology',
      'D. Estimation of ex ante net anthropogenic GHG removals by sinks',
      'E. Environmental impacts of the proposed A/R CDM project activity',
    ];
    expect(isContentsText(outline.join('\n'))).toBe(true);
  });
});
