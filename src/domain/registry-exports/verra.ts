import { distinct } from '../enrichment.js';
import { expandSubcategories } from '../subcategories.js';
import { cell, countryCell, dateCell, datePeriod, exportMapping, numberCell } from './common.js';

/** Verra registry search export ("projects.csv"): one row per project, ids without prefix. */
export const verraExport = exportMapping({
  source: 'verra',
  registry: 'Verra',
  idColumn: 'ID',
  requiredColumns: ['ID', 'Name', 'Proponent', 'Status'],
  fields(row) {
    const type = cell(row, 'Project Type');
    return {
      name: cell(row, 'Name'),
      location: countryCell(cell(row, 'Country/Area')),
      methodology: cell(row, 'Methodology'),
      proponent: cell(row, 'Proponent'),
      reductions: numberCell(row, 'Estimated Annual Emission Reductions'),
      registration: dateCell(row, 'Project Registration Date'),
      status: cell(row, 'Status'),
      type,
      creditPeriods: datePeriod(row, 'Crediting Period Start Date', 'Crediting Period End Date'),
      reductionActivity: distinct([...expandSubcategories([cell(row, 'AFOLU Activities')]), ...type.split(';')]),
    };
  },
});
