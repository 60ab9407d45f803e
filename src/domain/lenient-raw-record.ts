import { type RawRecord, rawRecordSchema } from './raw-record.js';

/**
 * Parses a stored raw record for derivation without ever throwing. Records are validated when imported, but
 * the registry's data is odd in places and records stored by older versions may not meet today's schema; the
 * metadata API must still answer (CONTRACT: never a 500 because of registry data). So:
 * - a missing registry or id is taken from the store's key;
 * - malformed elements of attributes, participationSummaries and documentGroups are dropped one by one (an
 *   attribute value written as a number is kept as its string; a document without a name is titled from its uri);
 * - any other top-level field that still fails is dropped, and its schema default applies.
 */
export function parseRawRecordLeniently(input: unknown, key: { registry: string; projectId: number }): RawRecord {
  const source: Record<string, unknown> = isObject(input) ? { ...input } : {};
  if (typeof source.registry !== 'string' || source.registry.trim() === '') source.registry = key.registry;
  const id = source.resourceIdentifier;
  const idOk = (typeof id === 'string' && /^\d+$/.test(id)) || (typeof id === 'number' && Number.isInteger(id) && id > 0);
  if (!idOk) source.resourceIdentifier = String(key.projectId);

  const first = rawRecordSchema.safeParse(source);
  if (first.success) return first.data;

  const cleaned: Record<string, unknown> = {
    ...source,
    attributes: sanitizeAttributes(source.attributes),
    participationSummaries: sanitizeParticipations(source.participationSummaries),
    documentGroups: sanitizeGroups(source.documentGroups),
  };
  const second = rawRecordSchema.safeParse(cleaned);
  if (second.success) return second.data;

  for (const issue of second.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field !== 'registry' && field !== 'resourceIdentifier') delete cleaned[field];
  }
  const third = rawRecordSchema.safeParse(cleaned);
  if (third.success) return third.data;
  // Built by hand rather than parsed, so that even an odd store key cannot make this function throw.
  return {
    registry: key.registry,
    resourceIdentifier: String(key.projectId),
    resourceName: '',
    description: '',
    attributes: [],
    childResources: [],
    documentGroups: [],
    inPublicCommentPeriod: false,
    participationSummaries: [],
  };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function sanitizeAttributes(x: unknown): unknown[] {
  if (!Array.isArray(x)) return [];
  const out: unknown[] = [];
  for (const a of x) {
    if (!isObject(a) || typeof a.code !== 'string') continue;
    const values = (Array.isArray(a.values) ? a.values : [])
      .filter((v) => isObject(v) && ['string', 'number', 'boolean'].includes(typeof v.value))
      .map((v: Record<string, unknown>) => ({ ...v, type: typeof v.type === 'string' ? v.type : 'string', value: String(v.value) }));
    out.push({ ...a, values });
  }
  return out;
}

function sanitizeParticipations(x: unknown): unknown[] {
  if (!Array.isArray(x)) return [];
  return x.filter(isObject).map((p) => ({
    ...p,
    programCode: typeof p.programCode === 'string' ? p.programCode : '',
    attributes: sanitizeAttributes(p.attributes),
  }));
}

function sanitizeGroups(x: unknown): unknown[] {
  if (!Array.isArray(x)) return [];
  return x.filter(isObject).map((g) => ({
    ...g,
    code: typeof g.code === 'string' ? g.code : '',
    description: typeof g.description === 'string' ? g.description : '',
    documents: sanitizeDocuments(g.documents),
  }));
}

function sanitizeDocuments(x: unknown): unknown[] {
  if (!Array.isArray(x)) return [];
  const out: unknown[] = [];
  for (const d of x) {
    // A document without a uri cannot be fetched or cited; everything else is kept.
    if (!isObject(d) || typeof d.uri !== 'string' || d.uri.trim() === '') continue;
    out.push({
      ...d,
      documentName: typeof d.documentName === 'string' && d.documentName !== '' ? d.documentName : titleFromUri(d.uri),
      documentType: typeof d.documentType === 'string' ? d.documentType : 'Other',
      uploadDate: typeof d.uploadDate === 'string' ? d.uploadDate : null,
    });
  }
  return out;
}

/** Last path segment of a uri ("…/VCS5533_project_description.pdf"), else the uri itself. */
export function titleFromUri(uri: string): string {
  const path = uri.split(/[?#]/)[0] ?? '';
  const last = path
    .split('/')
    .filter((s) => s !== '')
    .pop();
  if (last === undefined || /^[a-z]+:$/i.test(last)) return uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
