import { describe, expect, it } from 'vitest';
import { chunkSearchContext, documentHeading, projectSearchContext } from '../../src/domain/search-context.js';

const cleaned = {
  name: 'Facilitating Reforestation for Guangxi Watershed Management in Pearl River Basin',
  registry: 'CDM',
  resourceIdentifier: 547,
  location: 'China',
  methodology: 'AR-AM0001',
  type: 'Afforestation/Reforestation',
  description: 'Afforestation and reforestation of degraded land in Guangxi, China, under the BioCarbon Fund.',
};

describe('projectSearchContext', () => {
  it('names the project, its registry id, location, methodology, type and description, one per line', () => {
    expect(projectSearchContext(cleaned)).toBe(
      'Facilitating Reforestation for Guangxi Watershed Management in Pearl River Basin CDM project 547 China AR-AM0001 ' +
        'Afforestation/Reforestation Afforestation and reforestation of degraded land in Guangxi, China, under the BioCarbon Fund.',
    );
  });

  it('drops empty and repeated fields, and cuts a long description at a word boundary', () => {
    const ctx = projectSearchContext({ ...cleaned, location: '', methodology: ' ', description: `${'word '.repeat(300)}tail` });
    expect(ctx).not.toMatch(/tail/);
    expect(ctx.length).toBeLessThanOrEqual(600);
    expect(ctx.endsWith('word')).toBe(true);
    expect(projectSearchContext({ ...cleaned, description: cleaned.name }).split(cleaned.name).length).toBe(2);
  });
});

describe('documentHeading', () => {
  it('takes the first lines of the first page with text, skipping lines without words', () => {
    const pages = ['', '12\n\nVCS Methodology\nVM0004\nMethodology for Conservation Projects that Avoid Planned Land Use Conversion in Peat Swamp Forests\n2023-01-05\nVersion 2.0'];
    expect(documentHeading(pages)).toBe(
      'VCS Methodology VM0004 Methodology for Conservation Projects that Avoid Planned Land Use Conversion in Peat Swamp Forests Version 2.0',
    );
  });

  it('stops near 300 characters and is empty for a document without text', () => {
    const long = Array.from({ length: 40 }, (_, i) => `Heading line number ${i} of the cover page`).join('\n');
    expect(documentHeading([long]).length).toBeLessThanOrEqual(300);
    expect(documentHeading(['', '  '])).toBe('');
    expect(documentHeading([])).toBe('');
  });
});

describe('chunkSearchContext', () => {
  it('joins the non-empty parts', () => {
    expect(chunkSearchContext('Project A', 'Title')).toBe('Project A\nTitle');
    expect(chunkSearchContext('', 'Title')).toBe('Title');
    expect(chunkSearchContext('', '')).toBe('');
  });
});
