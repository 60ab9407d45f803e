import { type RawRecord, rawRecordSchema } from './raw-record.js';

/**
 * Parses a stored raw record for derivation without ever throwing. Records are validated when imported, but
 * the registry's data is odd in places and records stored by older versions may not meet today's schema; the
 * metadata API must still answer (CONTRACT: never a 500 because of registry data). So:
 * - a missing registry or id (or an id no number can hold exactly) is taken from the store's key;
 * - malformed elements of attributes, participationSummaries and documentGroups are dropped one by one (an
 *   attribute value written as a number is kept as its string; a document without a name is titled from its uri);
 * - any other top-level field that still fails is dropped, and its schema default applies.
 */
export function parseRawRecordLeniently(input: unknown, key: { registry: string; projectId: number }): RawRecord {
  const source: Record<string, unknown> = isObject(input) ? { ...input } : {};
  if (typeof source.registry !== 'string' || source.registry.trim() === '') source.registry = key.registry;
  const id = source.resourceIdentifier;
  const idOk = (typeof id === 'string' && /^\d+$/.test(id)) || (typeof id === 'number' && Number.isSafeInteger(id) && id > 0);
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
  // The schema's defaults under the key, which is not parsed: even an odd store key cannot make this function throw.
  return {
    ...rawRecordSchema.parse({ registry: '-', resourceIdentifier: '1' }),
    registry: key.registry,
    resourceIdentifier: String(key.projectId),
  };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The elements of an array that are objects; none when it is not an array. */
function objects(x: unknown): Record<string, unknown>[] {
  return Array.isArray(x) ? x.filter(isObject) : [];
}

const text = (x: unknown, fallback: string): string => (typeof x === 'string' ? x : fallback);

function sanitizeAttributes(x: unknown): unknown[] {
  return objects(x)
    .filter((a) => typeof a.code === 'string')
    .map((a) => {
      const values = objects(a.values).filter((v) => ['string', 'number', 'boolean'].includes(typeof v.value));
      return { ...a, values: values.map((v) => ({ ...v, type: text(v.type, 'string'), value: String(v.value) })) };
    });
}

function sanitizeParticipations(x: unknown): unknown[] {
  return objects(x).map((p) => ({ ...p, programCode: text(p.programCode, ''), attributes: sanitizeAttributes(p.attributes) }));
}

function sanitizeGroups(x: unknown): unknown[] {
  return objects(x).map((g) => ({
    ...g,
    code: text(g.code, ''),
    description: text(g.description, ''),
    documents: sanitizeDocuments(g.documents),
  }));
}

function sanitizeDocuments(x: unknown): unknown[] {
  // A document without a uri cannot be fetched or cited; everything else is kept.
  return objects(x)
    .filter((d) => typeof d.uri === 'string' && d.uri.trim() !== '')
    .map((d) => ({
      ...d,
      documentName: typeof d.documentName === 'string' && d.documentName !== '' ? d.documentName : titleFromUri(String(d.uri)),
      documentType: text(d.documentType, 'Other'),
      uploadDate: typeof d.uploadDate === 'string' ? d.uploadDate : null,
    }));
}

/** Last path segment of a uri ("…/VCS5533_project_description.pdf"), else the uri itself. */
export function titleFromUri(uri: string): string {
  const path = uri.split(/[?#]/)[0] ?? '';
  const last = path.split('/').findLast((s) => s !== '');
  if (last === undefined || /^[a-z]+:$/i.test(last)) return uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
