import type { CleanedDocumentGroup } from './cleaned-record.js';
import type { RawDocumentGroup } from './raw-record.js';

/** The four groups of a cleaned record, in the order SPEC 2.3 fixes. */
export const GROUP_KINDS = ['pipeline', 'registration', 'issuance', 'other'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

const KIND_WORD: Record<GroupKind, string> = {
  pipeline: 'Pipeline',
  registration: 'Registration',
  issuance: 'Issuance',
  other: 'Other',
};

const KIND_IN_CODE = /^(?:(.*?)_)?(PIPELINE|REGISTRATION|ISSUANCE|OTHER)(?:_DOCUMENTS?)?$/i;

/** The kind and program of a raw group code such as `VCS_PIPELINE_DOCUMENTS`; null for a code of no known kind. */
export function parseGroupCode(code: string): { kind: GroupKind; program: string | null } | null {
  const m = KIND_IN_CODE.exec(code.trim());
  if (!m) return null;
  const kind = (m[2] ?? '').toLowerCase() as GroupKind;
  const program = m[1] !== undefined && m[1] !== '' ? m[1] : null;
  return { kind, program };
}

function kindIsRecognised(group: RawDocumentGroup): boolean {
  return parseGroupCode(group.code) !== null || GROUP_KINDS.some((k) => group.description.toLowerCase().includes(k));
}

function kindOf(group: RawDocumentGroup): GroupKind {
  const fromCode = parseGroupCode(group.code);
  if (fromCode) return fromCode.kind;
  const words = group.description.toLowerCase();
  for (const kind of GROUP_KINDS) if (words.includes(kind)) return kind;
  // A group of an unknown kind keeps its documents rather than losing them.
  return 'other';
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
    const kind = kindOf(group);
    // Only a group that is of this kind names it; an unrecognised group merely lends its documents to "other".
    const description = kindIsRecognised(group) ? group.description.trim() : '';
    let target = byKind.get(kind);
    if (!target) {
      target = { description, documents: [] };
      byKind.set(kind, target);
    } else if (target.description === '') {
      target.description = description;
    }
    for (const d of group.documents) target.documents.push({ title: d.documentName, uri: d.uri });
  }
  return GROUP_KINDS.map((kind) => {
    const group = byKind.get(kind) ?? { description: '', documents: [] };
    return {
      description: group.description !== '' ? group.description : `${program} ${KIND_WORD[kind]} Documents`,
      documents: group.documents,
    };
  });
}
