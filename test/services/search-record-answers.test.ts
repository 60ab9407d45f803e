import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import type { ProjectRef, RequestedProject } from '../../src/domain/project-ref.js';
import { createSearchService } from '../../src/services/search.js';
import { createSearchFixture, searchOptions, type SearchFixture } from './support/fixtures.js';

// A generic question over a batch ("Who is the project proponent?"): each project's registry record says whom its
// documents name, and the answer quotes the sentence that names them, not one of the many that mention "the project
// proponent" in passing (domain/record-answers.ts, EvidencePassage.expected).

const GREENLEAF = { registry: 'Verra', projectId: 7001 };
const RIO = { registry: 'CDM', projectId: 7002 };
/** The same documents as GREENLEAF, and a record that names no proponent. */
const BARE = { registry: 'Verra', projectId: 7003 };

const attr = (code: string, ...values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });

function raw(ref: ProjectRef, attributes: ReturnType<typeof attr>[]): Record<string, unknown> {
  return {
    registry: ref.registry,
    resourceIdentifier: String(ref.projectId),
    resourceName: `Reforestation project ${ref.projectId}`,
    participationSummaries: [{ programCode: ref.registry === 'CDM' ? 'CDM' : 'VCS', attributes }],
  };
}

const passing = [
  'The project proponent shall monitor the plantations every year and the project proponent must keep the records of each monitoring round.',
  'The project proponent must demonstrate that the planting does not displace grazing to land outside the project boundary.',
];

let fx: SearchFixture;
beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.records.upsert([
    {
      ref: GREENLEAF,
      format: 'registry-json',
      raw: raw(GREENLEAF, [attr('PROPONENT_NAME', 'Greenleaf Carbon Partners Ltd'), attr('PROTOCOL_NAME', 'VM0047')]),
    },
    { ref: RIO, format: 'registry-json', raw: raw(RIO, [attr('PROPONENT_NAME', 'Rio Verde Forestal S.A.')]) },
    { ref: BARE, format: 'registry-json', raw: raw(BARE, []) },
  ]);
  for (const ref of [GREENLEAF, BARE]) {
    await fx.addDocument(ref, 'pd', [
      ...passing,
      'Greenleaf Carbon Partners Ltd develops the plantations together with the farmer cooperatives of the district.',
      'The plantations apply VM0047 for afforestation, reforestation and revegetation, version 1.1.',
    ]);
  }
  await fx.addDocument(RIO, 'pdd', [
    ...passing,
    'Rio Verde Forestal S.A. is the project participant responsible for planting and monitoring.',
  ]);
});
afterAll(async () => {
  await fx.close();
});

const asRequested = (ref: ProjectRef): RequestedProject => ({ ref, requestedRegistry: ref.registry });

describe('answers from what the records state', () => {
  it('quotes, for each project, the sentence naming the proponent its record names', async () => {
    const search = createSearchService(searchOptions(fx, { records: fx.records, countries: createCountryLookup() }));
    const res = await search.search({
      projects: [GREENLEAF, RIO, BARE].map(asRequested),
      query: 'Who is the project proponent?',
      perProject: true,
    });
    const answerOf = (ref: ProjectRef) => res.projects.find((p) => p.projectId === ref.projectId);
    expect(answerOf(GREENLEAF)?.answered).toBe(true);
    expect(answerOf(GREENLEAF)?.answer).toMatch(/^Greenleaf Carbon Partners Ltd develops the plantations/);
    expect(answerOf(RIO)?.answer).toMatch(/^Rio Verde Forestal S\.A\. is the project participant/);
    // The same documents without a record that names the proponent: the sentences that hold the question's word win.
    expect(answerOf(BARE)?.answer).toMatch(/^The project proponent/);
    // Every quote is still a verbatim substring of its passage.
    for (const c of res.citations) expect(c.text).toContain(c.quote);
  });

  it('without perProject, still cites and answers each project, every best passage first, within topK', async () => {
    const search = createSearchService(searchOptions(fx, { records: fx.records }));
    const res = await search.search({ projects: [GREENLEAF, RIO, BARE].map(asRequested), query: 'Who is the project proponent?', topK: 4 });
    expect(res.answered).toBe(true);
    expect(res.citations.length).toBeLessThanOrEqual(4);
    // Every project's best passage is cited among the first three, whatever the others' scores.
    expect(new Set(res.citations.slice(0, 3).map((c) => c.projectId))).toEqual(new Set([7001, 7002, 7003]));
    // One piece per project, named by it; BARE and GREENLEAF share their documents, and each keeps its own piece.
    expect(res.answer).toContain('Verra 7001: Greenleaf Carbon Partners Ltd develops the plantations');
    expect(res.answer).toContain('CDM 7002: Rio Verde Forestal S.A. is the project participant');
    expect(res.answer).toMatch(/Verra 7003: /);
  });

  it('answers a question that names one of the projects from that project, as before', async () => {
    const search = createSearchService(searchOptions(fx, { records: fx.records }));
    const res = await search.search({
      projects: [GREENLEAF, RIO, BARE].map(asRequested),
      query: 'Who is the project proponent of project 7002?',
      topK: 4,
    });
    // Answered from the named project's passages (as any question naming a project is), by the sentence its record
    // points at, and not one piece per project.
    expect(res.answer).toMatch(/^Rio Verde Forestal S\.A\. is the project participant/);
    expect(res.answer).not.toContain('Greenleaf');
  });

  it('leaves a question that asks for no field of the record as it was', async () => {
    const search = createSearchService(searchOptions(fx, { records: fx.records }));
    const res = await search.search({
      projects: [asRequested(GREENLEAF)],
      query: 'What must the project proponent demonstrate about grazing?',
    });
    expect(res.answer).toMatch(/^The project proponent must demonstrate that the planting does not displace grazing/);
  });
});
