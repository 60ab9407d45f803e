import { parseUsDate } from '../registry-values.js';
import { cell, countryCell, dateCell, exportMapping, numberCell } from './common.js';

/** Climate Action Reserve projects export: ids "CAR1957", US dates (mm/dd/yyyy), ISO alpha-2 countries. */
export const carExport = exportMapping({
  source: 'climate-action-reserve',
  registry: 'Climate Action Reserve',
  idColumn: 'Project ID',
  requiredColumns: ['Project ID', 'Project Name', 'Status'],
  fields: (row) => ({
    name: cell(row, 'Project Name'),
    description: cell(row, 'Project Notes'),
    location: countryCell(cell(row, 'Project Site Country')),
    // The Reserve has one protocol per project type; the export names no protocol version.
    methodology: '',
    proponent: cell(row, 'Project Developer') || cell(row, 'Project Owner'),
    registration: dateCell(row, 'Project Registered Date', parseUsDate),
    status: cell(row, 'Status'),
    type: cell(row, 'Project Type'),
    issuances: numberCell(row, 'Total Number of Offset Credits Registered'),
  }),
});
