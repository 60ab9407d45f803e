import { parseUsDate } from '../registry-values.js';
import { cell, countryCell, datePeriod, exportMapping, numberCell } from './common.js';

/** American Carbon Registry projects export: ids "ACR586", US dates (m/d/yyyy), ISO alpha-2 countries. */
export const acrExport = exportMapping({
  source: 'american-carbon-registry',
  registry: 'American Carbon Registry',
  idColumn: 'Project ID',
  requiredColumns: ['Project ID', 'Project Name'],
  fields: (row) => ({
    name: cell(row, 'Project Name'),
    location: countryCell(cell(row, 'Project Site Country')),
    methodology: cell(row, 'Project Methodology/Protocol'),
    proponent: cell(row, 'Project Developer'),
    // Compliance-only projects leave the voluntary status empty.
    status: cell(row, 'Voluntary Status') || cell(row, 'Compliance Program Status (ARB or Ecology)'),
    type: cell(row, 'Project Type'),
    creditPeriods: datePeriod(row, 'Current Crediting Period Start Date', 'Current Crediting Period End Date', parseUsDate),
    issuances: numberCell(row, 'Total Number of Credits Registered'),
  }),
});
