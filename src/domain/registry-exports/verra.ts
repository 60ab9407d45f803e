import { parseIsoDate, parseRegistryDate } from '../registry-values.js';
import { expandSubcategories } from '../subcategories.js';
import { cell, countryCell, distinct, formatDate, isoPeriod, numberCell, numericProjectId, type RegistryExportMapping } from './common.js';

/** Verra registry search export ("projects.csv"): one row per project, ids without prefix. */
export const verraExport: RegistryExportMapping = {
  source: 'verra',
  registry: 'Verra',
  idColumn: 'ID',
  requiredColumns: ['ID', 'Name', 'Proponent', 'Status'],
  projectId: (row) => numericProjectId(cell(row, 'ID')),
  fields(row) {
    const type = cell(row, 'Project Type');
    const registration = cell(row, 'Project Registration Date');
    return {
      name: cell(row, 'Name'),
      description: '',
      location: countryCell(cell(row, 'Country/Area')),
      methodology: cell(row, 'Methodology'),
      proponent: cell(row, 'Proponent'),
      reductions: numberCell(row, 'Estimated Annual Emission Reductions'),
      registration: formatDate(parseIsoDate(registration) ?? parseRegistryDate(registration)),
      status: cell(row, 'Status'),
      type,
      creditPeriods: isoPeriod(row, 'Crediting Period Start Date', 'Crediting Period End Date'),
      sizeHectares: 0,
      reductionActivity: distinct([...expandSubcategories([cell(row, 'AFOLU Activities')]), ...type.split(';')]),
    };
  },
};
