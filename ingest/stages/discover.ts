import { documentIdFor } from '../../src/domain/chunking.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { parseRawRecordLeniently } from '../../src/domain/lenient-raw-record.js';
import { projectSearchContext } from '../../src/domain/search-context.js';
import type { CountryLookup } from '../../src/ports/country-lookup.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import type { StoredProject } from '../../src/domain/stored-project.js';
import type { DocumentState } from '../../src/ports/document-state-store.js';
import type { DocumentWorkItem, ProjectWork, StageContext } from '../types.js';

/**
 * Source stage: the documents a stored project lists now, each with its previous state. Documents the project
 * no longer lists lose their chunks, text and state here (chunks first, state last, so a kill in between leaves
 * a state that the next run cleans up again). New documents get a `pending` state so `--status` shows them.
 */

/** Document types and file extensions that are not PDFs: recorded as skipped without downloading. */
const NON_PDF_DOCUMENT_TYPES = new Set(['kml file', 'err calculation spreadsheet']);
const NON_PDF_EXTENSIONS = /\.(kml|kmz|xlsx?|xlsm|csv|docx?|zip|shp|geojson|json|jpe?g|png)$/i;

export function nonPdfReason(uri: string, documentType: string): string | null {
  if (NON_PDF_DOCUMENT_TYPES.has(documentType.trim().toLowerCase())) return `not a PDF (document type ${documentType})`;
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // Not a URL: the download stage reports that; judge the raw string's extension here.
  }
  const ext = NON_PDF_EXTENSIONS.exec(path);
  return ext ? `not a PDF (${ext[1]?.toLowerCase()} file)` : null;
}

const NO_COUNTRIES: CountryLookup = { countryAt: () => null };

/** The project's part of its chunks' search context (domain/search-context.ts), from its stored record. */
export function projectContextOf(stored: StoredProject, ref: ProjectRef, countries: CountryLookup | undefined): string {
  return projectSearchContext(deriveCleaned(stored, { requestedRegistry: ref.registry, countries: countries ?? NO_COUNTRIES }));
}

export async function discover(ref: ProjectRef, ctx: Pick<StageContext, 'deps' | 'logger'>): Promise<ProjectWork> {
  const { records, states, texts, index } = ctx.deps;
  const stored = await records.get(ref);
  const items: DocumentWorkItem[] = [];
  if (!stored) {
    ctx.logger.warn({ project: ref }, 'project is not in the record store; nothing to ingest');
  } else if (stored.format !== 'registry-json') {
    ctx.logger.debug({ project: ref, format: stored.format }, 'record format lists no documents');
  } else {
    const raw = parseRawRecordLeniently(stored.raw, ref);
    const projectContext = projectContextOf(stored, ref, ctx.deps.countries);
    const seen = new Set<string>();
    for (const group of raw.documentGroups) {
      for (const doc of group.documents) {
        const uri = doc.uri.trim();
        if (uri === '') continue;
        const documentId = documentIdFor(uri);
        // The same file listed in two groups is one document.
        if (seen.has(documentId)) continue;
        seen.add(documentId);
        items.push({
          ref,
          documentId,
          uri,
          title: doc.documentName,
          documentType: doc.documentType,
          uploadDate: doc.uploadDate ?? null,
          projectContext,
          previous: null,
        });
      }
    }
  }

  const previous = await states.list({ projects: [ref] });
  const byId = new Map<string, DocumentState>(previous.map((s) => [s.documentId, s]));
  const keep = new Set(items.map((i) => i.documentId));
  const gone = previous.filter((s) => !keep.has(s.documentId));
  for (const s of gone) {
    await index.deleteDocument(ref, s.documentId);
    await texts.delete(ref, s.documentId);
  }
  if (gone.length > 0 || previous.length > 0) await states.removeOthers(ref, [...keep]);
  for (const s of gone) ctx.logger.info({ project: ref, documentId: s.documentId, uri: s.uri }, 'document no longer listed: removed');

  for (const item of items) {
    const prev = byId.get(item.documentId) ?? null;
    item.previous = prev;
    // Read again just before writing: another run on the same store may have finished the document since the
    // list above, and its state must not be overwritten by `pending`.
    if (!prev && (await states.get(ref, item.documentId)) === null) {
      await states.put({
        registry: ref.registry,
        projectId: ref.projectId,
        documentId: item.documentId,
        uri: item.uri,
        title: item.title,
        documentType: item.documentType,
        uploadDate: item.uploadDate,
        status: 'pending',
        reason: null,
        contentHash: null,
        pages: null,
        chunks: null,
        embedderId: null,
      });
    }
    const skip = nonPdfReason(item.uri, item.documentType);
    if (skip) item.outcome = { kind: 'skipped', reason: skip };
  }
  return { ref, items, removed: gone.length };
}
