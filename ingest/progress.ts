import { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Logger } from '../src/logger.js';
import type { DocumentOutcome } from './types.js';

/** What the pipeline tells a progress display; one implementation per kind of output. */
export interface ProgressReporter {
  /** More documents discovered (called once per project). */
  addTotal(documents: number): void;
  /** `ocrPages`: of `pages`, those read by OCR. */
  documentDone(info: { outcome: DocumentOutcome; pages: number; ocrPages?: number; chunks: number; label: string }): void;
  stop(): void;
  /**
   * A bar drawn on a terminal: writes a line of other output (a log line) above it, never across it; false once the
   * bar is stopped (the caller writes the line itself).
   */
  log?(line: string): boolean;
}

export const silentProgress: ProgressReporter = {
  addTotal() {},
  documentDone() {},
  stop() {},
};

/** A terminal bar on stderr: documents, pages, chunks per second and ETA. */
export function createBarProgress(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  const started = Date.now();
  let total = 0;
  let done = 0;
  let pages = 0;
  let ocrPages = 0;
  let chunks = 0;
  let failed = 0;
  // A MultiBar of one bar: it can write log lines above the bar (log), which a SingleBar cannot.
  const multi = new cliProgress.MultiBar(
    {
      stream,
      format:
        'documents {bar} {value}/{total} | pages {pages} (OCR {ocrPages}) | chunks {chunks} ({cps}/s) | failed {failed} | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 20,
      fps: 5,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = () => ({
    pages,
    ocrPages,
    chunks,
    failed,
    cps: (chunks / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1),
  });
  const bar = multi.create(0, 0, payload());
  let stopped = false;
  return {
    addTotal(n) {
      total += n;
      bar.setTotal(total);
    },
    documentDone(info) {
      done++;
      pages += info.pages;
      ocrPages += info.ocrPages ?? 0;
      chunks += info.chunks;
      if (info.outcome.kind === 'failed') failed++;
      bar.update(done, payload());
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // Lines logged since the last redraw first: stop() itself does not write them.
      if (stream.isTTY) multi.update();
      multi.stop();
    },
    // Off a terminal the bar is not drawn and would never write what it was given.
    ...(stream.isTTY
      ? {
          log: (line: string) => {
            if (stopped) return false;
            multi.log(line.endsWith('\n') ? line : `${line}\n`);
            return true;
          },
        }
      : {}),
  };
}

export interface LogSink {
  /** For the logger (createLogger's destination). */
  stream: Writable;
  /** Routes log lines above this reporter's bar while it runs, when `out` and the bar share a terminal. */
  attach(reporter: ProgressReporter): void;
  detach(): void;
}

/**
 * Where the worker's JSON log lines go: `out` (stdout), or, while a progress bar is drawn and `out` is a terminal
 * too, above the bar, so that log lines and the bar's redraws never interleave on the screen.
 */
export function createLogSink(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): LogSink {
  let target: ProgressReporter | null = null;
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      if (!target?.log?.(text)) out.write(text);
      done();
    },
  });
  return {
    stream,
    attach(reporter) {
      target = out.isTTY && reporter.log ? reporter : null;
    },
    detach() {
      target = null;
    },
  };
}

/** Plain log lines for logs and pipes: one per document, and a running count every `everyMs`. */
export function createLogProgress(logger: Logger, everyMs = 10_000): ProgressReporter {
  const started = Date.now();
  let total = 0;
  let done = 0;
  let chunks = 0;
  let lastReport = Date.now();
  return {
    addTotal(n) {
      total += n;
    },
    documentDone(info) {
      done++;
      chunks += info.chunks;
      const base = {
        document: info.label,
        outcome: info.outcome.kind,
        pages: info.pages,
        ...(info.ocrPages ? { ocrPages: info.ocrPages } : {}),
        chunks: info.chunks,
      };
      if (info.outcome.kind === 'failed') logger.warn({ ...base, reason: info.outcome.reason }, 'document failed');
      else if (info.outcome.kind === 'skipped' || info.outcome.kind === 'needs_ocr')
        logger.info({ ...base, reason: info.outcome.reason }, `document ${info.outcome.kind}`);
      else logger.info(base, `document ${info.outcome.kind}`);
      if (Date.now() - lastReport >= everyMs) {
        lastReport = Date.now();
        const secs = (Date.now() - started) / 1000;
        const eta = done > 0 ? Math.round(((total - done) * secs) / done) : null;
        logger.info({ done, total, chunksPerSecond: Number((chunks / secs).toFixed(1)), etaSeconds: eta }, 'progress');
      }
    },
    stop() {},
  };
}
