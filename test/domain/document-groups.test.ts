import { describe, expect, it } from 'vitest';
import { cleanDocumentGroups, GROUP_KINDS, parseGroupCode } from '../../src/domain/document-groups.js';

const doc = (name: string) => ({ documentName: name, documentType: 'Other', uri: `https://x/${name}`, extra: 1 });

describe('parseGroupCode', () => {
  it('reads the kind and program of a code, with or without the DOCUMENTS suffix', () => {
    expect(parseGroupCode('VCS_PIPELINE_DOCUMENTS')).toEqual({ kind: 'pipeline', program: 'VCS' });
    expect(parseGroupCode('issuance')).toEqual({ kind: 'issuance', program: null });
    expect(parseGroupCode('CCB_VERIFICATION')).toBeNull();
  });
});

describe('cleanDocumentGroups', () => {
  it('gives the four groups in order whatever the registry sent, naming missing ones after the program', () => {
    const groups = cleanDocumentGroups(
      [
        { code: 'CCB_ISSUANCE_DOCUMENTS', description: 'CCB Issuance Documents', documents: [doc('i.pdf')] },
        { code: 'CCB_PIPELINE_DOCUMENTS', description: ' CCB Pipeline Documents ', documents: [doc('p.pdf')] },
      ],
      'VCS',
    );
    expect(GROUP_KINDS).toHaveLength(4);
    expect(groups.map((g) => g.description)).toEqual([
      'CCB Pipeline Documents',
      'CCB Registration Documents',
      'CCB Issuance Documents',
      'CCB Other Documents',
    ]);
    expect(groups[0]?.documents).toEqual([{ title: 'p.pdf', uri: 'https://x/p.pdf' }]);
  });

  it('merges two programs of one kind, and puts a group of unknown kind under Other without lending its name', () => {
    const groups = cleanDocumentGroups(
      [
        { code: 'VCS_PIPELINE_DOCUMENTS', description: 'VCS Pipeline Documents', documents: [doc('a.pdf')] },
        { code: 'CCB_PIPELINE_DOCUMENTS', description: 'CCB Pipeline Documents', documents: [doc('b.pdf')] },
        { code: 'MISC', description: 'Assorted', documents: [doc('c.pdf')] },
      ],
      'GS',
    );
    expect(groups[0]?.documents.map((d) => d.title)).toEqual(['a.pdf', 'b.pdf']);
    expect(groups[3]).toEqual({ description: 'VCS Other Documents', documents: [{ title: 'c.pdf', uri: 'https://x/c.pdf' }] });
  });

  it('names the groups after the default program when no code names one', () => {
    expect(cleanDocumentGroups([], 'ACR').map((g) => g.description)[1]).toBe('ACR Registration Documents');
  });
});
