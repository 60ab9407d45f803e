import {
  cell,
  countryCell,
  distinct,
  numericProjectId,
  optionalNumberCell,
  parseUsDate,
  period,
  type RegistryExportMapping,
} from './common.js';

/** American Carbon Registry projects export: ids "ACR586", US dates (m/d/yyyy), ISO alpha-2 countries. */
export const acrExport: RegistryExportMapping = {
  source: 'american-carbon-registry',
  registry: 'American Carbon Registry',
  idColumn: 'Project ID',
  requiredColumns: ['Project ID', 'Project Name'],
  projectId: (row) => numericProjectId(cell(row, 'Project ID')),
  fields(row) {
    const type = cell(row, 'Project Type');
    const start = parseUsDate(cell(row, 'Current Crediting Period Start Date'));
    const end = parseUsDate(cell(row, 'Current Crediting Period End Date'));
    const issued = optionalNumberCell(row, 'Total Number of Credits Registered');
    return {
      name: cell(row, 'Project Name'),
      description: '',
      location: countryCell(cell(row, 'Project Site Country')),
      methodology: cell(row, 'Project Methodology/Protocol'),
      proponent: cell(row, 'Project Developer'),
      reductions: 0,
      registration: null,
      // Compliance-only projects leave the voluntary status empty.
      status: cell(row, 'Voluntary Status') || cell(row, 'Compliance Program Status (ARB or Ecology)'),
      type,
      creditPeriods: period(start, end),
      sizeHectares: 0,
      ...(issued !== undefined ? { issuances: issued } : {}),
      reductionActivity: distinct([type]),
    };
  },
};
