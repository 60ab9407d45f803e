import { cell, countryCell, distinct, numberCell, numericProjectId, type RegistryExportMapping } from './common.js';

/** Gold Standard registry projects export: GSID numeric; no crediting period, registration date or area. */
export const goldStandardExport: RegistryExportMapping = {
  source: 'gold-standard',
  registry: 'Gold Standard',
  idColumn: 'GSID',
  requiredColumns: ['GSID', 'Project Name', 'Status'],
  projectId: (row) => numericProjectId(cell(row, 'GSID')),
  fields(row) {
    const type = cell(row, 'Project Type');
    return {
      name: cell(row, 'Project Name'),
      description: cell(row, 'Description'),
      location: countryCell(cell(row, 'Country')),
      methodology: cell(row, 'Methodology'),
      proponent: cell(row, 'Project Developer Name'),
      reductions: numberCell(row, 'Estimated Annual Credits'),
      registration: null,
      status: cell(row, 'Status'),
      type,
      creditPeriods: [],
      // `Size` is a scale class ("Small Scale"), not an area.
      sizeHectares: 0,
      reductionActivity: distinct([type]),
    };
  },
};
