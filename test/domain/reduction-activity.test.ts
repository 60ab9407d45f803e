import { describe, expect, it } from 'vitest';
import { labelledActivities, namedActivities, reductionActivities } from '../../src/domain/reduction-activity.js';

describe('reduction activities', () => {
  it('reads labelled activity fields, dropping a footnote digit glued to the value', () => {
    const page = 'AFOLU project category2 Afforestation, Reforestation and Revegetation (ARR)\nProject activity type Afforestation3\n';
    expect(labelledActivities([page])).toEqual(['Afforestation']);
    expect(labelledActivities(['Type of project activity: Methane recovery from wastewater.'])).toEqual([
      'Methane recovery from wastewater',
    ]);
  });

  it('counts vocabulary activities named at least twice, most mentioned first', () => {
    const text =
      'The project distributes improved cookstoves. Improved cook stoves cut fuelwood use. ' +
      'Biogas is mentioned once. Landfill gas, landfill gas and landfill gas again.';
    expect(namedActivities([text])).toEqual(['Landfill gas capture', 'Improved cookstoves']);
    // A word broken over a line with a hyphen still counts.
    expect(namedActivities(['The HFC-23 destruction by thermal oxi-\ndation of HFC 23 and thermal oxidation of HFC-23.'])).toEqual([
      'HFC-23 destruction',
    ]);
  });

  it('reads a phrase however the text joins its words, and counts overlapping phrases once', () => {
    expect(namedActivities(['Destruction of the HFC23 stream; destruction of HFC-23 by incineration.'])).toEqual(['HFC-23 destruction']);
    expect(namedActivities(['Adaptive multi-paddock grazing and adaptive multi paddock grazing.'])).toEqual([
      'Improved grazing management',
    ]);
    // "wetland rewetting" is one mention, not also one of "rewetting".
    expect(namedActivities(['Wetland rewetting began in 2020.'], 2)).toEqual([]);
    expect(namedActivities(['Wetland rewetting began in 2020, then rewetting of the peat.'], 2)).toEqual(['Wetland restoration']);
  });

  it('puts subcategory names first, then export names, labelled and named activities, without repeats', () => {
    const pages = ['Project activity type Afforestation\nafforestation afforestation reforestation reforestation'];
    expect(
      reductionActivities({ subcategoryCodes: ['ARR; WRC'], activityNames: ['Agroforestry'], category: 'AFOLU', descriptionPages: pages }),
    ).toEqual([
      'Afforestation, Reforestation and Revegetation',
      'Wetlands Restoration and Conservation',
      'Agroforestry',
      'Afforestation',
      'Reforestation',
    ]);
  });

  it('falls back to the category only when nothing else names an activity', () => {
    expect(reductionActivities({ subcategoryCodes: [], category: 'Energy industries' })).toEqual(['Energy industries']);
    expect(reductionActivities({ subcategoryCodes: [], category: '' })).toEqual([]);
  });
});
