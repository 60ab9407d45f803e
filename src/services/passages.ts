import { documentIdFor } from '../domain/chunking.js';
import { formatPassageId, pageLink, parsePassageId } from '../domain/passage-id.js';
import { distinctRefs } from '../domain/project-ref.js';
import { AppError } from '../errors.js';
import type { DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { SearchService } from './search.js';

/**
 * The deep-research pair over every indexed document (the MCP `search` and `fetch` tools): `search` finds passages
 * across all projects with the batch search itself, `fetch` reads one back by the id `search` gave. A passage is a
 * page (the batch search cites one passage per page); its id is domain/passage-id.ts.
 */

export interface PassageHit {
  id: string;
  title: string;
  /** The document opened at the page. */
  url: string;
}

export interface Passage extends PassageHit {
  /** The page's text as extracted from the document. */
  text: string;
  metadata: {
    registry: string;
    projectId: number;
    documentTitle: string;
    documentType: string;
    /** The document's address, without the page. */
    uri: string;
    page: number;
    /** Pages of the document. */
    pages: number;
  };
}

export interface PassageService {
  /** The best `limit` passages for `query` over the indexed documents of every project, best first. */
  search(query: string, limit: number, signal?: AbortSignal): Promise<PassageHit[]>;
  /** The passage an id from `search` names; 400 for a string that is no such id, 404 for one no longer indexed. */
  fetch(id: string): Promise<Passage>;
}

export interface PassageServiceOptions {
  search: SearchService;
  documents: Pick<DocumentStateStore, 'list' | 'get'>;
  texts: Pick<DocumentTextStore, 'get'>;
}

function passageTitle(p: { documentTitle: string; page: number; registry: string; projectId: number }): string {
  return `${p.documentTitle}, page ${p.page} (${p.registry} ${p.projectId})`;
}

export function createPassageService(opts: PassageServiceOptions): PassageService {
  return {
    async search(query, limit, signal) {
      // Every project with an indexed document: the scope of a search over all projects.
      const states = await opts.documents.list({ status: 'indexed' });
      const refs = distinctRefs(states.map((s) => ({ registry: s.registry, projectId: s.projectId })));
      if (refs.length === 0) return [];
      const result = await opts.search.search({
        projects: refs.map((ref) => ({ ref, requestedRegistry: ref.registry })),
        query,
        topK: limit,
        // Only the citations are used: no LLM answer is waited for.
        extractiveAnswer: true,
        ...(signal ? { signal } : {}),
      });
      return result.citations.map((c) => ({
        id: formatPassageId({ registry: c.registry, projectId: c.projectId, documentId: documentIdFor(c.uri), page: c.page }),
        title: passageTitle(c),
        url: pageLink(c.uri, c.page),
      }));
    },

    async fetch(id) {
      const ref = parsePassageId(id);
      if (ref === null) {
        throw new AppError('invalid_request', `id: ${JSON.stringify(id.slice(0, 200))} is not a passage id given by search`, {
          details: [{ path: 'id', message: 'expected <registry>:<project id>:<document id>:<page>, as search returns it' }],
        });
      }
      const notFound = (why: string): AppError =>
        new AppError('not_found', `no indexed passage ${id.trim()}: ${why}`, { details: [{ path: 'id', message: why }] });
      const state = await opts.documents.get(ref, ref.documentId);
      if (state === null || state.status !== 'indexed') throw notFound(`${ref.registry} ${ref.projectId} has no such indexed document`);
      const pages = await opts.texts.get(ref, ref.documentId);
      const text = pages?.[ref.page - 1];
      if (pages === null || text === undefined) throw notFound(`the document has no page ${ref.page}`);
      const metadata = {
        registry: ref.registry,
        projectId: ref.projectId,
        documentTitle: state.title,
        documentType: state.documentType,
        uri: state.uri,
        page: ref.page,
        pages: pages.length,
      };
      return { id: formatPassageId(ref), title: passageTitle(metadata), text, url: pageLink(state.uri, ref.page), metadata };
    },
  };
}
