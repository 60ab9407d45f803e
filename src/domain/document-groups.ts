import type { CleanedDocumentGroup } from './cleaned-record.js';
import type { RawDocumentGroup } from './raw-record.js';

/** The four groups of a cleaned record, in the order SPEC 2.3 fixes. */
export const GROUP_KINDS = ['pipeline', 'registration', 'issuance', 'other'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

const KIND_IN_CODE = /^(?:(.*?)_)?(PIPELINE|REGISTRATION|ISSUANCE|OTHER)(?:_DOCUMENTS?)?$/i;

/** The kind and program of a raw group code such as `VCS_PIPELINE_DOCUMENTS`; null for a code of no known kind. */
export function parseGroupCode(code: string): { kind: GroupKind; program: string | null } | null {
  const m = KIND_IN_CODE.exec(code.trim());
  if (!m) return null;
  return { kind: (m[2] ?? '').toLowerCase() as GroupKind, program: m[1] || null };
}

/**
 * The four cleaned groups, always in the order pipeline, registration, issuance, other, whatever order and
 * subset the registry sent. Each keeps the registry's description; a missing group is named like the
 * registry's own ("VCS Pipeline Documents") after the program in the other groups' codes, else
 * `defaultProgram`. Several raw groups of one kind (two programs) are merged, documents in record order.
 * Documents are reduced to {title, uri} (SPEC 2.6).
 */
export function cleanDocumentGroups(groups: readonly RawDocumentGroup[], defaultProgram: string): CleanedDocumentGroup[] {
  const program = groups.map((g) => parseGroupCode(g.code)?.program).find((p) => typeof p === 'string') ?? defaultProgram;
  const byKind = new Map<GroupKind, CleanedDocumentGroup>();
  for (const group of groups) {
    // The kind its code or else its description names; a group of neither lends its documents to "other" rather
    // than losing them, but does not name it.
    const named = parseGroupCode(group.code)?.kind ?? GROUP_KINDS.find((k) => group.description.toLowerCase().includes(k)) ?? null;
    const kind = named ?? 'other';
    const description = named !== null ? group.description.trim() : '';
    const target = byKind.get(kind) ?? { description: '', documents: [] };
    byKind.set(kind, target);
    target.description ||= description;
    for (const d of group.documents) target.documents.push({ title: d.documentName, uri: d.uri });
  }
  return GROUP_KINDS.map((kind) => {
    const group = byKind.get(kind) ?? { description: '', documents: [] };
    return {
      description: group.description !== '' ? group.description : `${program} ${kind.charAt(0).toUpperCase()}${kind.slice(1)} Documents`,
      documents: group.documents,
    };
  });
}
