import type { ReadRequest } from '../../../src/ports/reader.js';

// Two passages as a validation report and a project description state them.
export const request: ReadRequest = {
  question: 'Which laboratory analysed the soil samples?',
  passages: [
    {
      id: 1,
      text: 'Soil samples were taken at 30 cm depth in every stratum. The samples were analysed by the Eurofins laboratory in Wolverhampton.',
      score: 0.9,
    },
    {
      id: 2,
      text: 'The project area covers 1,433 ha of former grazing land. Rubber trees were planted between 2006 and 2010.',
      score: 0.4,
    },
  ],
  scope: ['Lowick Manor soil carbon project'],
};
export const ANSWER = 'The samples were analysed by the Eurofins laboratory in Wolverhampton.';
