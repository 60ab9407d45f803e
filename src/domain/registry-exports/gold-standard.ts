import { cell, countryCell, exportMapping, numberCell } from './common.js';

/** Gold Standard registry projects export: GSID numeric; no crediting period, registration date or area (`Size` is a scale class). */
export const goldStandardExport = exportMapping({
  source: 'gold-standard',
  registry: 'Gold Standard',
  idColumn: 'GSID',
  requiredColumns: ['GSID', 'Project Name', 'Status'],
  fields: (row) => ({
    name: cell(row, 'Project Name'),
    description: cell(row, 'Description'),
    location: countryCell(cell(row, 'Country')),
    methodology: cell(row, 'Methodology'),
    proponent: cell(row, 'Project Developer Name'),
    reductions: numberCell(row, 'Estimated Annual Credits'),
    status: cell(row, 'Status'),
    type: cell(row, 'Project Type'),
  }),
});
