import { describe, expect, it } from 'vitest';
import { findEvidence } from '../../src/domain/evidence.js';
import { askedUnit, holdsFigureIn } from '../../src/domain/units.js';

describe('askedUnit', () => {
  it.each([
    ['How tall is the exhaust stack of the thermal oxidiser, in metres?', 'metres'],
    ['What did it cost per hectare, in Indian rupees, to establish the plantations?', 'rupees'],
    ['How many hectares will the project plant, and in which counties?', 'hectares'],
    ['What project area, in hectares, does the project description apply?', 'hectares'],
    ['What were the average grain yields, in tonnes per hectare, before the baseline?', 'tonnes per hectare'],
    ['How many CERs has the project been issued so far?', 'credits'],
    ['How many tCO2e does the project expect to put into the buffer pool?', 'tonnes'],
    ['What percentage was assigned for the buffer calculation?', 'percent'],
    ['What share of the saplings has survived so far, in percent?', 'percent'],
    ['How much electricity, in MWh, does the plant use each year?', 'watt-hours'],
    ['How hot does the incinerator run, in degrees Celsius?', 'degrees'],
    ['What is the price per credit in US dollars?', 'dollars'],
    ['What noise levels (in dB(A)) were measured at the plant boundary?', 'decibels'],
    ['What NOx concentration, in mg/Nm3, does the flue gas have at the stack?', 'milligrams per cubic metre'],
    ['How much timber, in cubic metres, is harvested each year?', 'cubic metres'],
    ['How many litres of water can the tanks carry?', 'litres'],
    ['What ammonia slip, in ppm, is allowed?', 'parts per million'],
  ])('%s -> %s', (question, unit) => {
    expect(askedUnit(question)?.name).toBe(unit);
  });

  it.each([
    'How hot does the GFL incinerator run, and why is that temperature chosen?',
    'How much CO2 per year is the project expected to remove?',
    'What credits does the project issue?',
    'Which villages commented on the project, and how far are they from the plant?',
    'Where is the project located in Hamburg?',
    'How many clarification requests did the validation generate?',
  ])('names no unit: %s', (question) => {
    expect(askedUnit(question)).toBeNull();
  });
});

describe('holdsFigureIn', () => {
  const unit = (question: string) => {
    const u = askedUnit(question);
    if (!u) throw new Error(`no unit in ${question}`);
    return u;
  };
  const metres = unit('in metres');
  const hectares = unit('in hectares');
  const rupees = unit('in Indian rupees');
  const percent = unit('in percent');
  const perHectare = unit('in tonnes per hectare');
  const credits = unit('how many CERs');
  const tonnes = unit('how many tonnes');

  it('reads a figure written before its unit, with separators and decimals, attached or apart', () => {
    expect(holdsFigureIn(metres, 'The stack is 30 m high.')).toBe(true);
    expect(holdsFigureIn(metres, 'strips 6m wide')).toBe(true);
    expect(holdsFigureIn(hectares, 'Establishing 2,000 ha of multiple-use forests')).toBe(true);
    expect(holdsFigureIn(hectares, 'a project area of 219.8 hectares')).toBe(true);
    expect(holdsFigureIn(percent, 'a non-permanence risk rating of 18%')).toBe(true);
    expect(holdsFigureIn(percent, 'less than 10 per cent of the area')).toBe(true);
    expect(holdsFigureIn(perHectare, 'yields of 8.2 t/ha on average')).toBe(true);
    expect(holdsFigureIn(perHectare, 'about 7 tonnes per hectare')).toBe(true);
    expect(holdsFigureIn(credits, 'a total of 12,345 CERs were issued')).toBe(true);
    expect(holdsFigureIn(tonnes, 'removals of 5,35,052 tCO2e over the crediting period')).toBe(true);
  });

  it('reads compatibility forms as their plain ones', () => {
    expect(holdsFigureIn(tonnes, 'The annual average carbon removal is estimated at 26,752tCO\u2082e')).toBe(true);
    expect(holdsFigureIn(unit('in square metres'), 'each plot is 400 m\u00b2')).toBe(true);
  });

  it('reads a figure under a heading or label that gives the unit in brackets or before a colon', () => {
    expect(holdsFigureIn(tonnes, 'estimated net anthropogenic GHG removals by sinks (tonnes of CO2 e) 25,795 Notes: minus sign')).toBe(
      true,
    );
    expect(holdsFigureIn(hectares, 'Project area (ha): 219.8')).toBe(true);
    expect(holdsFigureIn(hectares, 'Area to be planted\nin 2007 (ha)\nTotal\narea (ha)\nP. massoniana + Quercus sp. 6:4 100 800 900')).toBe(
      true,
    );
    expect(holdsFigureIn(metres, 'Stack height in m: 30')).toBe(true);
    expect(holdsFigureIn(hectares, 'the area (see the map of the hectares planted) is shown')).toBe(false);
  });

  it('reads money by its sign before the figure, or its name after it', () => {
    expect(holdsFigureIn(rupees, 'a cost of Rs. 45,000 per hectare')).toBe(true);
    expect(holdsFigureIn(rupees, 'about INR 7 crores')).toBe(true);
    expect(holdsFigureIn(rupees, 'about 7 crores over the life of the project')).toBe(true);
    expect(holdsFigureIn(rupees, 'about \u20b9 12,000')).toBe(true);
  });

  it('does not take the unit without a figure, a word that starts like it, or a square or cubic unit', () => {
    expect(holdsFigureIn(metres, 'discharged to atmosphere via an exhaust stack')).toBe(false);
    expect(holdsFigureIn(metres, 'about 5 million people')).toBe(false);
    expect(holdsFigureIn(metres, 'each 10m2 pixel')).toBe(false);
    expect(holdsFigureIn(metres, 'a flow of 30 m3 per hour')).toBe(false);
    expect(holdsFigureIn(hectares, 'Indicate the gross project area in hectares')).toBe(false);
    expect(holdsFigureIn(perHectare, 'normally measured as tonnes per hectare (t/ha)')).toBe(false);
    expect(holdsFigureIn(rupees, 'High upfront costs for establishing plantations')).toBe(false);
    expect(holdsFigureIn(credits, 'Date of first issue: April 8, 2004')).toBe(false);
  });

  it('reads sound levels, concentrations, volumes and capacities as documents write them', () => {
    const decibels = unit('What noise levels (in dB(A)) were measured?');
    expect(holdsFigureIn(decibels, 'Noise at the boundary was 55 dB(A) by day.')).toBe(true);
    expect(holdsFigureIn(decibels, 'below 45 decibels at night')).toBe(true);
    expect(holdsFigureIn(decibels, 'Noise from the incinerator is expected to be low.')).toBe(false);
    const concentration = unit('What NOx concentration, in mg/Nm3, is emitted?');
    expect(holdsFigureIn(concentration, 'NOx (as NO2) 200 mg/Nm3 or less')).toBe(true);
    expect(holdsFigureIn(concentration, 'a flow of 30 m3 per hour')).toBe(false);
    const cubic = unit('How much timber, in cubic metres, is harvested?');
    expect(holdsFigureIn(cubic, 'a flow of 30 m3 per hour')).toBe(true);
    expect(holdsFigureIn(cubic, 'The stack is 30 m high.')).toBe(false);
    const litres = unit('How many litres can the tanks carry?');
    expect(holdsFigureIn(litres, 'two mobile tanks of 2,000 litres each')).toBe(true);
    expect(holdsFigureIn(litres, 'a 500 L drum')).toBe(true);
    expect(holdsFigureIn(litres, 'Implementing partner has deployed two mobile water tanks')).toBe(false);
  });
});

describe('findEvidence and the unit asked', () => {
  const question = 'How tall is the exhaust stack of the thermal oxidiser, in metres?';
  const stack = 'The scrubbed gases from the caustic scrubber are discharged to atmosphere via an exhaust stack of the thermal oxidiser.';

  it('does not answer from passages whose pages give no figure in the unit asked, and says which unit', () => {
    const ev = findEvidence(question, [{ id: 1, score: 0.9, text: stack }]);
    expect(ev.answered).toBe(false);
    expect(ev.unitMissing).toBe('metres');
    // The quote is still chosen: the closest passage is cited for checking.
    expect(ev.quotes[0]?.text).toContain('exhaust stack');
  });

  it('answers when the passage, or the rest of its page, gives a figure in it', () => {
    const inPassage = findEvidence(question, [{ id: 1, score: 0.9, text: `${stack} The stack is 30 m high.` }]);
    expect(inPassage.answered).toBe(true);
    expect(inPassage.unitMissing).toBeUndefined();
    const onPage = findEvidence(question, [{ id: 1, score: 0.9, text: stack, page: `Stack height: 30 m (above ground level).\n${stack}` }]);
    expect(onPage.answered).toBe(true);
  });

  it('leaves questions that name no unit as they were', () => {
    const ev = findEvidence('How are the scrubbed gases of the thermal oxidiser discharged?', [{ id: 1, score: 0.9, text: stack }]);
    expect(ev.answered).toBe(true);
    expect(ev.unitMissing).toBeUndefined();
  });
});
