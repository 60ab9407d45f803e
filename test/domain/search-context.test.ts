import { describe, expect, it } from 'vitest';
import { projectSearchContext } from '../../src/domain/search-context.js';

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
