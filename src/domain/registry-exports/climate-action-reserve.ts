import {
  cell,
  countryCell,
  distinct,
  formatDate,
  numericProjectId,
  optionalNumberCell,
  parseUsDate,
  type RegistryExportMapping,
} from './common.js';

/** Climate Action Reserve projects export: ids "CAR1957", US dates (mm/dd/yyyy), ISO alpha-2 countries. */
export const carExport: RegistryExportMapping = {
  source: 'climate-action-reserve',
  registry: 'Climate Action Reserve',
  idColumn: 'Project ID',
  requiredColumns: ['Project ID', 'Project Name', 'Status'],
  projectId: (row) => numericProjectId(cell(row, 'Project ID')),
  fields(row) {
    const type = cell(row, 'Project Type');
    const issued = optionalNumberCell(row, 'Total Number of Offset Credits Registered');
    return {
      name: cell(row, 'Project Name'),
      description: cell(row, 'Project Notes'),
      location: countryCell(cell(row, 'Project Site Country')),
      // The Reserve has one protocol per project type; the export names no protocol version.
      methodology: '',
      proponent: cell(row, 'Project Developer') || cell(row, 'Project Owner'),
      reductions: 0,
      registration: formatDate(parseUsDate(cell(row, 'Project Registered Date'))),
      status: cell(row, 'Status'),
      type,
      creditPeriods: [],
      sizeHectares: 0,
      ...(issued !== undefined ? { issuances: issued } : {}),
      reductionActivity: distinct([type]),
    };
  },
};
