/**
 * Writes the demo documents (demo/documents/*.pdf) of the project's fictional demo projects (demo/records.jsonl).
 *
 *   npx tsx scripts/make-demo-pdfs.ts [outDir]     (default demo/documents)
 *
 * A small PDF 1.4 writer is enough: the standard Helvetica fonts need no embedding, each text line is one text
 * object, and the cross-reference table is computed from byte offsets. The output is deterministic (no creation
 * date, fixed object order), so re-running the script reproduces the committed files byte for byte and the test
 * test/demo/demo-data.test.ts can check that they are up to date.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A line of a page: running text (wrapped), a heading, a table row (cells at fixed columns) or a blank line. */
export type PdfLine = string | { heading: string } | { row: string[] } | { blank: true };

export interface DemoDocument {
  file: string;
  title: string;
  pages: PdfLine[][];
}

const PAGE_WIDTH = 595; // A4 in points
const PAGE_HEIGHT = 842;
const MARGIN = 56;
const FONT_SIZE = 10;
const LEADING = 14;
const WRAP_CHARS = 92;
const COLUMN_X = [0, 70, 210, 330, 430];

/** Wraps running text at word boundaries to about WRAP_CHARS characters (Helvetica averages half an em). */
function wrap(text: string): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > WRAP_CHARS) {
      out.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out;
}

/** A PDF literal string in WinAnsi (Latin-1 here): parentheses and backslashes escaped, other bytes octal. */
function pdfString(text: string): string {
  let out = '(';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 63;
    if (code > 255) throw new Error(`character ${JSON.stringify(ch)} is outside WinAnsi/Latin-1 in ${JSON.stringify(text)}`);
    if (ch === '(' || ch === ')' || ch === '\\') out += `\\${ch}`;
    else if (code < 32 || code > 126) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out})`;
}

function pageContent(lines: PdfLine[], footer: string): string {
  const ops: string[] = [];
  let y = PAGE_HEIGHT - MARGIN;
  const text = (font: 'F1' | 'F2', size: number, x: number, s: string) => {
    ops.push(`BT /${font} ${size} Tf ${x} ${y} Td ${pdfString(s)} Tj ET`);
  };
  for (const line of lines) {
    if (typeof line === 'string') {
      for (const part of wrap(line)) {
        text('F1', FONT_SIZE, MARGIN, part);
        y -= LEADING;
      }
    } else if ('heading' in line) {
      y -= 4;
      text('F2', FONT_SIZE + 2, MARGIN, line.heading);
      y -= LEADING + 4;
    } else if ('row' in line) {
      // One text object per row; each cell is positioned at its column so extractors keep the columns apart.
      const cells = line.row.map((cell, i) => `1 0 0 1 ${MARGIN + (COLUMN_X[i] ?? i * 100)} ${y} Tm ${pdfString(cell)} Tj`).join(' ');
      ops.push(`BT /F1 ${FONT_SIZE} Tf ${cells} ET`);
      y -= LEADING;
    } else {
      y -= LEADING;
    }
    if (y < MARGIN + 2 * LEADING) throw new Error(`page overflows: ${footer}`);
  }
  y = MARGIN - 20;
  text('F1', 8, MARGIN, footer);
  return ops.join('\n');
}

/** A complete PDF file: catalog, page tree, two fonts, one content stream per page, info, xref, trailer. */
export function renderPdf(doc: DemoDocument): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesRef = add('');
  const f1 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const f2 = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  doc.pages.forEach((lines, i) => {
    const content = pageContent(lines, `${doc.title} - page ${i + 1} of ${doc.pages.length}`);
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesRef} 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] ` +
          `/Resources << /Font << /F1 ${f1} 0 R /F2 ${f2} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  });
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesRef} 0 R >>`;
  objects[pagesRef - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = add(`<< /Title ${pdfString(doc.title)} /Producer (carbon-docs scripts/make-demo-pdfs.ts) >>`);

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const blank = { blank: true } as const;
const h = (heading: string) => ({ heading });
const row = (...cells: string[]) => ({ row: cells });
const fmt = (n: number) => n.toLocaleString('en-US');

/** Yearly table rows with a running total, so each page states figures a reader can check. */
function yearlyRows(values: Array<[string, number]>): PdfLine[] {
  let cumulative = 0;
  return values.map(([year, value]) => {
    cumulative += value;
    return row(year, fmt(value), fmt(cumulative));
  });
}

const FICTIONAL =
  'DEMO DOCUMENT. This project, its participants and all figures are fictional; they were written for the ' +
  'carbon-docs demo data set and describe no real project.';

/** The demo documents. Every page carries facts of its own, so that a search demo can cite a page. */
export const DEMO_DOCUMENTS: DemoDocument[] = [
  {
    file: 'PD_900001_rio_verde_agroforestry.pdf',
    title: 'Rio Verde Valley Agroforestry Restoration - Project Description v1.2',
    pages: [
      [
        h('Rio Verde Valley Agroforestry Restoration'),
        'Project Description, version 1.2, 20 March 2023. VCS project 900001 (demo).',
        FICTIONAL,
        blank,
        h('1 Summary of the project'),
        'The project restores degraded cattle pasture in the Rio Verde valley, department of Tolima, Colombia, by ' +
          'establishing shade-grown cacao and native timber trees on 186 smallholder farms. The planted area is ' +
          '12,400 hectares and the project start date is 1 January 2022.',
        'The project applies methodology VM0047 (Afforestation, Reforestation and Revegetation) and has a crediting ' +
          'period of 30 years, from 1 January 2022 to 31 December 2051. The estimated average net removals are ' +
          '41,250 tCO2e per year, 1,237,500 tCO2e over the crediting period.',
        'Besides carbon removals, the project aims to raise farm income from cacao, protect the water supply of the ' +
          'town of San Lucio and reconnect forest fragments used by the white-footed tamarin.',
      ],
      [
        h('2 Project proponent and location'),
        'The sole project proponent is Fundacion Cuenca Viva, a non-profit foundation based in Ibague, Colombia, ' +
          'which signs a 30-year agroforestry agreement with each participating farm.',
        'The project zone lies between 900 and 1,650 metres above sea level, centred on latitude 4.42 N and ' +
          'longitude 75.18 W. Mean annual rainfall is 1,870 mm, with two dry seasons (December to February and ' +
          'July to August).',
        h('3 Planting design'),
        'Each hectare receives 1,100 cacao seedlings under 160 shade and timber trees. The main timber species are ' +
          'Cordia alliodora (laurel), Cedrela odorata (cedro) and Tabebuia rosea (guayacan); Inga edulis is planted ' +
          'as a nitrogen-fixing shade tree. Planting took place in three waves: 4,100 ha in 2022, 5,200 ha in 2023 ' +
          'and 3,100 ha in 2024.',
        'Fire breaks of 10 metres surround every farm block, and the foundation runs a nursery in El Placer with a ' +
          'capacity of 900,000 seedlings per year.',
      ],
      [
        h('4 Estimated GHG emission reductions and removals'),
        'Net removals are estimated with VM0047 using allometric equations for each species, minus leakage from ' +
          'displaced grazing (estimated at 4% of removals) and a 12% contribution to the AFOLU pooled buffer.',
        'Table 4.1: Estimated net GHG removals for the first ten years of the crediting period (tCO2e).',
        row('Year', 'Net removals', 'Cumulative'),
        ...yearlyRows([
          ['2022', 3120],
          ['2023', 9870],
          ['2024', 18450],
          ['2025', 27300],
          ['2026', 35940],
          ['2027', 42610],
          ['2028', 48200],
          ['2029', 52730],
          ['2030', 55980],
          ['2031', 58040],
        ]),
        blank,
        'For the years 2032 to 2051 the removals are estimated at 885,260 tCO2e in total (44,263 tCO2e per year on ' +
          'average), giving 1,237,500 tCO2e over the 30-year crediting period and an average of 41,250 tCO2e per year.',
      ],
      [
        h('5 Monitoring plan'),
        'Carbon stocks are measured in 142 permanent sample plots of 500 square metres, remeasured every five years; ' +
          'the first full remeasurement is planned for 2027. Drone imagery of every farm is taken each dry season ' +
          'to confirm tree survival, which must stay above 85%.',
        'Fires, pests and any clearing are recorded by community monitors and reported within 30 days. The ' +
          'non-permanence risk rating from the AFOLU Non-Permanence Risk Tool is 12%.',
        h('6 Stakeholder consultation'),
        'Eleven consultation meetings were held between May and October 2021 with 412 participants, including the ' +
          'San Lucio water board. The main concern raised was the loss of grazing land; the project answered it by ' +
          'keeping 15% of each farm as improved silvopastoral pasture.',
      ],
    ],
  },
  {
    file: 'VAL_900001_rio_verde_agroforestry.pdf',
    title: 'Rio Verde Valley Agroforestry Restoration - Validation Report',
    pages: [
      [
        h('Validation Report: Rio Verde Valley Agroforestry Restoration'),
        'VCS project 900001 (demo). Validation/verification body: Andes Assurance Partners S.A.S. Report ' +
          'AAP-VAL-2023-017, issued 2 May 2023.',
        FICTIONAL,
        blank,
        h('1 Validation opinion'),
        'Andes Assurance Partners has validated the project description version 1.2 against the VCS Standard v4.4 ' +
          'and methodology VM0047. In our opinion the project meets all applicable requirements, and its estimate ' +
          'of 1,237,500 tCO2e of net removals over the 30-year crediting period is reasonable.',
        'The validation team made a site visit from 13 to 17 February 2023 and visited 24 of the 186 farms.',
      ],
      [
        h('2 Findings'),
        'The validation raised three corrective action requests (CARs) and two clarification requests (CLs); all ' +
          'were closed before this report was issued.',
        'CAR-01: the baseline land-cover map used imagery from 2019 only. Closed after the proponent added 2016 and ' +
          '2021 imagery showing that the pasture had been treeless for at least ten years.',
        'CAR-02: the leakage estimate omitted grazing moved to farms outside the project zone. Closed after the ' +
          'leakage deduction was raised from 2% to 4% of removals.',
        'CAR-03: two farm agreements lacked the signature of the land owner. Closed after signed copies were provided.',
        'CL-01 asked how seedling survival below 85% is handled (answer: replanting within one season); CL-02 asked ' +
          'for the source of the wood density values (answer: the Global Wood Density Database).',
      ],
      [
        h('3 Conclusion'),
        'All findings are closed. Andes Assurance Partners issues a positive validation opinion and recommends the ' +
          'project for registration under the VCS Program.',
        'Lead validator: Mariana Ospina. Technical reviewer: Julian Restrepo. Bogota, 2 May 2023.',
      ],
    ],
  },
  {
    file: 'PD_DRAFT_900002_kisaru_cookstoves.pdf',
    title: 'Kisaru Highlands Efficient Cookstoves - Draft Project Description',
    pages: [
      [
        h('Kisaru Highlands Efficient Cookstoves'),
        'Draft Project Description, version 0.9, 8 January 2024. VCS project 900002 (demo).',
        FICTIONAL,
        blank,
        h('1 Summary'),
        'The project distributes 24,000 improved biomass cookstoves to households in the Kisaru highlands of ' +
          'central Kenya. The stoves burn about half the firewood of a three-stone fire, which reduces the ' +
          'harvest of non-renewable woody biomass and the resulting CO2 emissions.',
        'The project is developed jointly by three proponents: Kisaru Clean Energy Ltd (stove assembly and sales), ' +
          "the Mlima Women's Cooperative (distribution, training and after-sales service) and GreenHearth " +
          'Partners B.V. (carbon finance and monitoring).',
      ],
      [
        h('2 Baseline and emission reductions'),
        'The baseline is cooking on a three-stone fire using 3.9 tonnes of firewood per household per year. A ' +
          'kitchen performance test with 120 households measured 1.8 tonnes per year with the project stove, a ' +
          'saving of 2.1 tonnes per household per year.',
        'The fraction of non-renewable biomass (fNRB) is 0.83, taken from the national default, and the emission ' +
          'factor of wood fuel is 112 tCO2 per TJ. The methodology is VMR0006.',
        'Stoves are distributed in four rounds of 6,000 from March 2024 to December 2025; about 3% of stoves are ' +
          'expected to fall out of use each year and are replaced under the warranty.',
      ],
      [
        h('3 Estimated emission reductions'),
        'Table 3.1: Estimated emission reductions (tCO2e) over the seven-year crediting period 1 March 2024 to ' +
          '28 February 2031. The average is 57,300 tCO2e per year.',
        row('Year', 'Reductions', 'Cumulative'),
        ...yearlyRows([
          ['2024', 14200],
          ['2025', 43800],
          ['2026', 66100],
          ['2027', 65400],
          ['2028', 64700],
          ['2029', 64000],
          ['2030', 63300],
          ['2031', 19600],
        ]),
        blank,
        'Monitoring uses a stove-usage survey of 150 households each year and temperature loggers on 60 stoves.',
      ],
    ],
  },
  {
    file: 'PD_DRAFT_900003_northbrook_wetland.pdf',
    title: 'Northbrook Fen Wetland Restoration - Draft Project Description',
    pages: [
      [
        h('Northbrook Fen Wetland Restoration'),
        'Draft Project Description, version 0.4, 30 September 2025. VCS project 900003 (demo).',
        FICTIONAL,
        blank,
        h('1 Summary'),
        'The project rewets 3,250.5 hectares of drained fen peatland at Northbrook, Manitoba, Canada, that was ' +
          'ditched for hay production in the 1960s. Blocking the drainage ditches raises the water table and ' +
          'stops the oxidation of the peat.',
        'The proponent is the Prairie Marsh Trust of Winnipeg. The crediting period is 30 years, from 1 June 2025 ' +
          'to 31 May 2055, and the estimated net reductions are 8,800 tCO2e per year.',
      ],
      [
        h('2 Restoration works'),
        'Forty-one ditch plugs of compacted peat and sheet piling will be built in the 2025 and 2026 summers. The ' +
          'target is a mean water table within 10 cm of the surface from May to September.',
        'Water levels are logged hourly in 36 dipwells along six transects. Sphagnum and sedge cover is surveyed ' +
          'in 90 vegetation quadrats every three years.',
        'Rewetting increases methane emissions: the project estimates 1,150 tCO2e per year of additional methane, ' +
          'which is deducted from the avoided CO2 emissions of 9,950 tCO2e per year.',
      ],
      [
        h('3 Estimated net emission reductions'),
        'Table 3.1: Estimated net emission reductions for the first five years (tCO2e). Partial years are ' +
          'pro-rated from the 1 June 2025 start.',
        row('Year', 'Net reductions', 'Cumulative'),
        ...yearlyRows([
          ['2025', 5160],
          ['2026', 8800],
          ['2027', 8800],
          ['2028', 8800],
          ['2029', 8800],
        ]),
        blank,
        'A flood-risk assessment found no effect on neighbouring farmland because the outlet weir keeps the ' +
          'Northbrook creek at its present level.',
      ],
    ],
  },
  {
    file: 'PD_900004_sundara_rice.pdf',
    title: 'Sundara Rice Paddy Water Management - Project Description',
    pages: [
      [
        h('Sundara Rice Paddy Water Management'),
        'Project Description, version 2.0, 15 June 2017. VCS project 900004 (demo).',
        FICTIONAL,
        blank,
        h('1 Summary'),
        'The project introduces alternate wetting and drying (AWD) irrigation on 4,180 hectares of rice paddies ' +
          'in the Mekong delta, Vietnam, farmed by 2,350 households of the Sundara cooperative union. Draining ' +
          'the fields at least twice per season cuts methane emissions from flooded soil.',
        'The project applies AMS-III.AU and has a renewable crediting period of seven years: the first from ' +
          '1 April 2016 to 31 March 2023, the second from 1 April 2023 to 31 March 2030.',
      ],
      [
        h('2 Baseline emissions'),
        'In the baseline, fields are kept continuously flooded for both the winter-spring and summer-autumn crops. ' +
          'Measurements with closed chambers in 2015 gave 2.9 kg of methane per hectare per day under continuous ' +
          'flooding and 1.6 kg per hectare per day under AWD.',
        'Field water tubes (perforated plastic pipes) in every plot show farmers when the water has dropped 15 cm ' +
          'below the surface, the signal to irrigate again.',
      ],
      [
        h('3 Estimated emission reductions'),
        'The estimated reductions are 22,640 tCO2e per year, 158,480 tCO2e over the first crediting period.',
        'Table 3.1: Estimated emission reductions for the first crediting period (tCO2e).',
        row('Year', 'Reductions', 'Cumulative'),
        ...yearlyRows([
          ['2016', 16980],
          ['2017', 22640],
          ['2018', 22640],
          ['2019', 22640],
          ['2020', 22640],
          ['2021', 22640],
          ['2022', 22640],
          ['2023', 5660],
        ]),
      ],
    ],
  },
  {
    file: 'MR_900004_sundara_rice_2021-2023.pdf',
    title: 'Sundara Rice Paddy Water Management - Monitoring Report 2021-2023',
    pages: [
      [
        h('Monitoring Report: Sundara Rice Paddy Water Management'),
        'VCS project 900004 (demo). Monitoring period 1 April 2021 to 31 March 2023. Version 1.0, 12 July 2023.',
        FICTIONAL,
        blank,
        h('1 Results'),
        'Verified emission reductions for the monitoring period are 44,117 tCO2e: 21,480 tCO2e from 1 April 2021 ' +
          'to 31 March 2022 and 22,637 tCO2e from 1 April 2022 to 31 March 2023.',
        'The 2021 result is below the estimate because the summer-autumn crop of 2021 was replanted after a flood ' +
          'in August 2021 and was kept flooded for 19 extra days.',
      ],
      [
        h('2 Monitoring of the practice'),
        'AWD was applied on 91% of the enrolled area, checked in 480 randomly chosen plots each season. Plots that ' +
          'were not drained twice in a season were excluded from the emission reductions.',
        'Rice yields averaged 6.1 tonnes per hectare per crop, the same as before the project, and irrigation ' +
          'pumping time fell by 27%, saving each household about 38 litres of diesel per year.',
      ],
    ],
  },
  {
    file: 'PD_DRAFT_900005_alto_parana_redd.pdf',
    title: 'Alto Parana Forest Corridor REDD+ - Draft Project Description',
    pages: [
      [
        h('Alto Parana Forest Corridor REDD+'),
        'Draft Project Description, version 0.2, 14 November 2025. VCS project 900005 (demo).',
        FICTIONAL,
        blank,
        h('1 Summary'),
        'The project protects 18,900 hectares of Atlantic Forest in the department of Alto Parana, Paraguay, ' +
          'which links two existing reserves. Without the project, the area would be cleared for soybean at ' +
          'the regional rate of 1.4% per year.',
        'The proponent is Corredor Verde S.A. of Asuncion. The methodology is VM0048 and the crediting period is ' +
          '30 years from 1 January 2025. The estimated average emission reductions are 96,400 tCO2e per year.',
      ],
      [
        h('2 Project activities'),
        'Activities are ranger patrols from four field stations, conservation agreements with 64 neighbouring ' +
          'landholders, and a yerba mate agroforestry programme that offers an income from standing forest.',
        'Deforestation is monitored with satellite alerts every week and a wall-to-wall forest map each year. The ' +
          'first verification is planned for 2027.',
      ],
    ],
  },
];

export function writeDemoPdfs(outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  return DEMO_DOCUMENTS.map((doc) => {
    const file = path.join(outDir, doc.file);
    writeFileSync(file, renderPdf(doc));
    return file;
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const outDir = path.resolve(process.argv[2] ?? path.join(repoRoot, 'demo', 'documents'));
  for (const file of writeDemoPdfs(outDir)) console.log(file);
}
