import cliProgress from 'cli-progress';
import type { Logger } from '../src/logger.js';
import type { DocumentOutcome } from './types.js';

/** What the pipeline tells a progress display; one implementation per kind of output. */
export interface ProgressReporter {
  /** More documents discovered (called once per project). */
  addTotal(documents: number): void;
  documentDone(info: { outcome: DocumentOutcome; pages: number; chunks: number; label: string }): void;
  stop(): void;
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
  let chunks = 0;
  let failed = 0;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'documents {bar} {value}/{total} | pages {pages} | chunks {chunks} ({cps}/s) | failed {failed} | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 20,
      fps: 5,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = () => ({
    pages,
    chunks,
    failed,
    cps: (chunks / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1),
  });
  bar.start(0, 0, payload());
  return {
    addTotal(n) {
      total += n;
      bar.setTotal(total);
    },
    documentDone(info) {
      done++;
      pages += info.pages;
      chunks += info.chunks;
      if (info.outcome.kind === 'failed') failed++;
      bar.update(done, payload());
    },
    stop() {
      bar.stop();
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
      const base = { document: info.label, outcome: info.outcome.kind, pages: info.pages, chunks: info.chunks };
      if (info.outcome.kind === 'failed') logger.warn({ ...base, reason: info.outcome.reason }, 'document failed');
      else if (info.outcome.kind === 'skipped' || info.outcome.kind === 'needs_ocr') logger.info({ ...base, reason: info.outcome.reason }, `document ${info.outcome.kind}`);
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
