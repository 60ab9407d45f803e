/** The cleaned project record (SPEC 2.1-2.3). Field names with spaces are kept as SPEC writes them. */
export interface CleanedDocument {
  title: string;
  uri: string;
}

export interface CleanedDocumentGroup {
  description: string;
  documents: CleanedDocument[];
}

export interface CleanedMetadata {
  emissions_reductions: Record<string, number>;
  issuances: number;
  retirements: number;
  reduction_activity: string[];
  specific_proponents?: string[];
}

export interface CleanedRecord {
  name: string;
  description: string;
  hidden: boolean;
  location: string;
  methodology: string;
  proponent: string;
  reductions: number;
  registration: string | null;
  registry: string;
  resourceIdentifier: number;
  status: string;
  type: string;
  'Reported Period': number;
  'Size (Hectares)': number;
  'Total Reported Sequestration': number;
  summary: string;
  metadata: CleanedMetadata;
  documentGroups: CleanedDocumentGroup[];
}

/**
 * What the service learns about a project beyond its registry record: written by the ingestion worker
 * (document-derived fields) and the issuance importer, read when a cleaned record is derived.
 * Every field is optional: absent means "not known yet", and the derivation uses its documented fallback.
 */
export interface ProjectEnrichment {
  summary?: string;
  emissionsReductions?: Record<string, number>;
  /** Where emissionsReductions came from: a document table, or the annual estimate spread over the period. */
  emissionsReductionsSource?: 'document' | 'estimate';
  issuances?: number;
  retirements?: number;
  reductionActivity?: string[];
}
