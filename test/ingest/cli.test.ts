import { describe, expect, it } from 'vitest';
import { parseCliArgs, parseProjectList, UsageError } from '../../ingest/cli.js';

describe('parseCliArgs', () => {
  it('reads the documented flags', () => {
    expect(
      parseCliArgs(['--records', 'recs/', '--registry', 'vcs', '--replace-base', 'http://127.0.0.1:8080', '--no-documents']),
    ).toMatchObject({
      records: 'recs/',
      registry: 'vcs',
      replaceBase: 'http://127.0.0.1:8080',
      documents: false,
      all: false,
    });
    expect(parseCliArgs(['--all', '--reindex', '--no-progress'])).toMatchObject({ all: true, reindex: true, progress: false });
    expect(parseCliArgs(['--projects', 'Verra:4086, vcs:5533'])).toMatchObject({
      projects: [
        { registry: 'Verra', projectId: 4086 },
        { registry: 'Verra', projectId: 5533 },
      ],
    });
    expect(parseCliArgs(['--status', '--json'])).toMatchObject({ status: true, json: true });
    expect(parseCliArgs(['--registry', 'Verra', '--ids', '4086,5533'])).toMatchObject({
      registry: 'Verra',
      ids: '4086,5533',
      documents: true,
    });
    expect(parseCliArgs(['--export', 'gold-standard', 'projects.csv'])).toMatchObject({
      exportFile: { registry: 'gold-standard', file: 'projects.csv' },
    });
    expect(parseCliArgs(['--transactions', 'tx.csv'])).toMatchObject({ transactions: 'tx.csv' });
    expect(parseCliArgs(['--enrich', '--projects', 'Verra:4086'])).toMatchObject({
      enrich: true,
      projects: [{ registry: 'Verra', projectId: 4086 }],
    });
    expect(parseCliArgs(['--hide', 'Verra:4086,vcs:5533'])).toMatchObject({
      hide: {
        projects: [
          { registry: 'Verra', projectId: 4086 },
          { registry: 'Verra', projectId: 5533 },
        ],
        hidden: true,
      },
    });
    expect(parseCliArgs(['--unhide', 'Verra:4086'])).toMatchObject({
      hide: { projects: [{ registry: 'Verra', projectId: 4086 }], hidden: false },
    });
  });

  it.each([
    [[], /nothing to do/],
    [['--all', '--projects', 'Verra:1'], /exclude each other/],
    [['--status', '--all'], /--status only reads state/],
    [['--json', '--all'], /--json goes with --status/],
    [['--all', '--no-documents'], /only makes sense with --records/],
    [['--records'], /argument missing|--records/],
    [['--bogus'], /^unknown option --bogus \(see --help\)$/],
    [['--regsitry', 'Verra', '--ids', '1'], /^unknown option --regsitry; did you mean --registry\?$/],
    [['--all', '--reindx'], /^unknown option --reindex; did you mean --reindex\?$|^unknown option --reindx; did you mean --reindex\?$/],
    [['--records=x.jsonl', '--replace-bse=http://x'], /^unknown option --replace-bse; did you mean --replace-base\?$/],
    [['--all', '-x'], /^unknown option -x \(see --help\)$/],
    [['--registry', 'Nowhere', '--ids', '1'], /^--registry: unknown registry "Nowhere" \(known: .*Verra/],
    [['--records', 'r.jsonl', '--registry', 'Nowhere'], /^--registry: unknown registry "Nowhere"/],
    [['--registry', 'gold standard', '--ids', '1'], /--registry Gold Standard --ids: records can be fetched live from Verra only/],
    [['--registry', 'Verra', '--ids', '12,abc'], /--ids: "abc" is not a positive integer project id/],
    [['--projects', 'Verra:abc'], /project id must be a positive integer, got "abc"/],
    [['--projects', 'Mars:1'], /unknown registry "Mars"/],
    [['--projects', '4086'], /expected <registry>:<id>, got "4086"/],
    [['--ids', '4086'], /--ids needs --registry/],
    [['--export', 'Verra'], /--export needs a registry and one file/],
    [['--export', 'Mars', 'x.csv'], /--export: no export mapping for registry "Mars"/],
    [['--all', 'stray'], /unexpected argument "stray"/],
    [['--transactions', 'tx.csv', '--records', 'r.jsonl'], /one of --records/],
    [['--transactions', 'tx.csv', '--all'], /only import rows/],
    [['--enrich', '--all'], /--enrich runs alone/],
    [['--registry', 'Verra'], /nothing to do/],
    [['--hide', 'Verra:4086', '--unhide', 'Verra:5533'], /--hide and --unhide exclude each other/],
    [['--hide', 'Verra:4086', '--all'], /--hide \/ --unhide run alone \(got --all too\)/],
    [['--hide', 'Mars:1'], /--hide: unknown registry "Mars"/],
    [['--unhide', '4086'], /--unhide: expected <registry>:<id>, got "4086"/],
    [['--all', '--inline', '--wait'], /--inline and --wait exclude each other/],
    [['--status', '--wait'], /--wait goes with a run that indexes documents/],
    [['--records', 'r.jsonl', '--no-documents', '--inline'], /--inline goes with a run that indexes documents/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  it('reads --inline and --wait for runs that index documents', () => {
    expect(parseCliArgs(['--all', '--inline'])).toMatchObject({ all: true, inline: true, wait: false });
    expect(parseCliArgs(['--records', 'r.jsonl', '--wait'])).toMatchObject({ records: 'r.jsonl', inline: false, wait: true });
  });

  it('keeps registry names that contain spaces', () => {
    expect(parseProjectList('Gold Standard:12')).toEqual([{ registry: 'Gold Standard', projectId: 12 }]);
  });
});
