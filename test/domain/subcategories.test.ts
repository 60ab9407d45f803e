import { describe, expect, it } from 'vitest';
import { expandSubcategories } from '../../src/domain/subcategories.js';

describe('subcategory codes', () => {
  it.each([
    ['ARR', 'Afforestation, Reforestation and Revegetation'],
    ['ALM', 'Agricultural Land Management'],
    ['IFM', 'Improved Forest Management'],
    ['REDD', 'Reducing Emissions from Deforestation and Forest Degradation'],
    ['WRC', 'Wetlands Restoration and Conservation'],
    ['ACoGS', 'Avoided Conversion of Grasslands and Shrublands'],
    ['acogs', 'Avoided Conversion of Grasslands and Shrublands'],
  ])('expands %s', (code, name) => {
    expect(expandSubcategories([code])).toEqual([name]);
  });

  it('keeps an unknown code as written rather than dropping it', () => {
    expect(expandSubcategories([' XYZ '])).toEqual(['XYZ']);
  });

  it('splits combined values and removes repeats, keeping order', () => {
    expect(expandSubcategories(['ARR; WRC', 'REDD, ARR', 'IFM/ALM'])).toEqual([
      'Afforestation, Reforestation and Revegetation',
      'Wetlands Restoration and Conservation',
      'Reducing Emissions from Deforestation and Forest Degradation',
      'Improved Forest Management',
      'Agricultural Land Management',
    ]);
    expect(expandSubcategories([])).toEqual([]);
    expect(expandSubcategories([' ; '])).toEqual([]);
  });
});
