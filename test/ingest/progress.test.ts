import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createBarProgress, createLogSink } from '../../ingest/progress.js';
import { createLogger } from '../../src/logger.js';

/** A writable that records what is written to it, posing as a terminal (or not). */
function screen(isTTY: boolean): Writable & { isTTY: boolean; columns: number; text(): string } {
  const parts: string[] = [];
  const w = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      parts.push(chunk.toString());
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; text(): string };
  w.isTTY = isTTY;
  w.columns = 120;
  w.text = () => parts.join('');
  return w;
}

/** What a terminal shows, line by line: escape sequences dropped, carriage returns and newlines as line breaks. */
const screenLines = (raw: string): string[] =>
  raw
    .replace(/\x1B(\[[0-9;?]*[A-Za-z]|[78])/g, '\n')
    .split(/[\r\n]+/)
    .filter((l) => l.trim() !== '');

describe('log lines and the progress bar on one terminal', () => {
  it('writes every JSON log line whole, above the bar, never inside a bar line', async () => {
    const terminal = screen(true);
    const stdout = screen(true);
    const sink = createLogSink(stdout);
    const logger = createLogger({ level: 'info', name: 'test', destination: sink.stream });
    const bar = createBarProgress(terminal as unknown as NodeJS.WriteStream);
    sink.attach(bar);
    bar.addTotal(3);
    for (let i = 0; i < 3; i++) {
      logger.info({ document: `doc ${i}` }, 'document indexed');
      bar.documentDone({ outcome: { kind: 'indexed' }, pages: 2, chunks: 5, label: `doc ${i}` });
      await new Promise((r) => setTimeout(r, 250));
    }
    logger.warn({ document: 'doc 3' }, 'document failed');
    bar.stop();
    sink.detach();
    logger.info('after the bar');

    // On the terminal both share, nothing went to stdout behind the bar's back while it was drawn.
    expect(
      stdout
        .text()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { msg: string }).msg),
    ).toEqual(['after the bar']);
    const lines = screenLines(terminal.text());
    const logLines = lines.filter((l) => l.includes('"level"'));
    expect(logLines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      'document indexed',
      'document indexed',
      'document indexed',
      'document failed',
    ]);
    // Bar lines hold no log text and log lines no bar text.
    for (const l of lines) expect(l.includes('"level"') && l.includes('documents ')).toBe(false);
    expect(lines.some((l) => /documents .* 3\/3/.test(l))).toBe(true);
  });

  it('leaves log lines on stdout when stdout is not the terminal (piped to a file)', () => {
    const stdout = screen(false);
    const sink = createLogSink(stdout);
    const logger = createLogger({ level: 'info', name: 'test', destination: sink.stream });
    const terminal = screen(true);
    const bar = createBarProgress(terminal as unknown as NodeJS.WriteStream);
    sink.attach(bar);
    logger.info('to the file');
    bar.stop();
    sink.detach();
    expect(JSON.parse(stdout.text()) as { msg: string }).toMatchObject({ msg: 'to the file' });
    expect(terminal.text()).not.toContain('to the file');
  });
});
