import { Worker } from 'node:worker_threads';
import type { PdfExtractor, Stage } from '../types.js';
import type { ExtractCaps, ExtractResult } from './extract-pdf.js';
import type { ExtractRequest, ExtractResponse } from './extract-worker.js';

/**
 * Text per physical page with pdf-parse 2 (pdf.js), in worker threads. A PDF that parses but carries no text layer
 * is `needs_ocr`; one that does not parse (truncated, encrypted, corrupt) fails with pdf.js's reason; one over a
 * limit fails naming the limit. pdf.js runs synchronously for as long as a page takes, and a hostile PDF (a page
 * whose content inflates to hundreds of MB, tens of thousands of pages) takes minutes and gigabytes: off the
 * ingestion thread, a document is stopped at EXTRACT_TIMEOUT_MS (the thread is terminated), at
 * EXTRACT_MAX_MEMORY_MB of JavaScript heap (the thread's resourceLimits), at EXTRACT_MAX_PAGES pages (before any
 * page is read) or EXTRACT_MAX_TEXT_CHARS characters of text; the run goes on with the next document.
 */

export type { ExtractResult } from './extract-pdf.js';

export interface ExtractLimits extends ExtractCaps {
  /** Time for one document, from when its bytes reach the thread. */
  timeoutMs: number;
  /** JavaScript heap of an extraction thread (V8 old generation), in MB. */
  maxMemoryMb: number;
}

/**
 * The defaults leave wide room over the corpus's largest document (bench/README.md "Measurements cited by code") and over what a real
 * project document holds (rarely more than a few hundred pages or 2 million characters).
 */
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  timeoutMs: 120_000,
  maxMemoryMb: 1024,
  maxPages: 3000,
  maxTextChars: 10_000_000,
};

/** How long a new thread may take to load tsx and pdf.js before the document fails. */
const THREAD_START_MS = 60_000;
/** Idle threads kept for the next documents (unreferenced: they do not keep the process alive)... */
const MAX_IDLE_THREADS = 4;
/** ... for this long: a thread holds pdf.js's memory (the API indexes its demo documents once, then serves). */
const IDLE_THREAD_MS = 30_000;

function workerSpec(): { boot: URL; entry: string } {
  const ext = new URL(import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js';
  return {
    // The embedders' boot module registers tsx inside the thread when running from .ts sources.
    boot: new URL('../../src/adapters/embedders/worker-boot.mjs', import.meta.url),
    entry: new URL(`./extract-worker${ext}`, import.meta.url).href,
  };
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  /** Set while a document is in the thread: settles it when the thread dies. */
  onDeath: ((reason: string) => void) | null;
  /** Ends an idle thread after IDLE_THREAD_MS. */
  idleTimer: NodeJS.Timeout | null;
  dead: boolean;
}

const failed = (reason: string): ExtractResult => ({ ok: false, kind: 'failed', reason });

/** A pool of extraction threads, one document per thread at a time; threads are reused until a limit kills one. */
export function createPdfExtractor(overrides: Partial<ExtractLimits> = {}): PdfExtractor {
  const limits: ExtractLimits = { ...DEFAULT_EXTRACT_LIMITS, ...overrides };
  const caps: ExtractCaps = { maxPages: limits.maxPages, maxTextChars: limits.maxTextChars };
  const idle: Thread[] = [];
  const all = new Set<Thread>();
  let nextId = 1;
  let closed = false;

  function spawn(): Thread {
    const { boot, entry } = workerSpec();
    const worker = new Worker(boot, {
      workerData: { entry },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb },
      // pdf.js's warnings go to the parent's stderr, never into its JSON log lines on stdout.
      stdout: true,
    });
    worker.stdout.on('data', (d: Buffer) => process.stderr.write(d));
    const thread: Thread = { worker, ready: Promise.resolve(), onDeath: null, idleTimer: null, dead: false };
    thread.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the extraction thread did not start within ${THREAD_START_MS} ms`)),
        THREAD_START_MS,
      );
      worker.once('message', (msg: ExtractResponse) => {
        clearTimeout(timer);
        if (msg.type === 'ready') resolve();
        else reject(new Error('the extraction thread answered before it was ready'));
      });
      const die = (reason: string): void => {
        clearTimeout(timer);
        thread.dead = true;
        all.delete(thread);
        const i = idle.indexOf(thread);
        if (i >= 0) idle.splice(i, 1);
        reject(new Error(reason));
        thread.onDeath?.(reason);
      };
      worker.on('error', (err: Error & { code?: string }) => {
        die(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `extraction exceeded the memory limit of ${limits.maxMemoryMb} MB (EXTRACT_MAX_MEMORY_MB)`
            : `the extraction thread crashed (${err.message})`,
        );
      });
      worker.on('exit', (code) => die(`the extraction thread exited with code ${code}`));
    });
    thread.ready.catch(() => undefined);
    all.add(thread);
    return thread;
  }

  async function run(thread: Thread, bytes: Uint8Array): Promise<ExtractResult> {
    await thread.ready;
    const id = nextId++;
    return new Promise<ExtractResult>((resolve) => {
      const timer = setTimeout(() => {
        thread.onDeath = null;
        thread.dead = true;
        all.delete(thread);
        thread.worker.off('message', onMessage);
        void thread.worker.terminate();
        resolve(failed(`extraction took longer than the limit of ${limits.timeoutMs} ms (EXTRACT_TIMEOUT_MS)`));
      }, limits.timeoutMs);
      const onMessage = (msg: ExtractResponse): void => {
        if (msg.type !== 'result' || msg.id !== id) return;
        clearTimeout(timer);
        thread.worker.off('message', onMessage);
        thread.onDeath = null;
        resolve(msg.result);
      };
      thread.onDeath = (reason) => {
        clearTimeout(timer);
        thread.worker.off('message', onMessage);
        resolve(failed(reason));
      };
      thread.worker.on('message', onMessage);
      // A copy, transferred: pdf.js detaches the buffer it parses, and the caller's bytes stay usable.
      const copy = new Uint8Array(bytes);
      const req: ExtractRequest = { id, bytes: copy, caps };
      thread.worker.postMessage(req, [copy.buffer]);
    });
  }

  return {
    async extract(bytes) {
      if (closed) throw new Error('extract: the PDF extractor is closed');
      const thread = idle.pop() ?? spawn();
      if (thread.idleTimer) clearTimeout(thread.idleTimer);
      thread.idleTimer = null;
      thread.worker.ref();
      let result: ExtractResult;
      try {
        result = await run(thread, bytes);
      } catch (err) {
        void thread.worker.terminate();
        return failed(err instanceof Error ? err.message : String(err));
      }
      if (!thread.dead && !closed && idle.length < MAX_IDLE_THREADS) {
        thread.worker.unref();
        idle.push(thread);
        thread.idleTimer = setTimeout(() => {
          const i = idle.indexOf(thread);
          if (i >= 0) idle.splice(i, 1);
          all.delete(thread);
          void thread.worker.terminate();
        }, IDLE_THREAD_MS);
        thread.idleTimer.unref();
      } else if (!thread.dead) {
        all.delete(thread);
        void thread.worker.terminate();
      }
      return result;
    },
    async close() {
      closed = true;
      idle.length = 0;
      for (const t of all) if (t.idleTimer) clearTimeout(t.idleTimer);
      await Promise.all([...all].map((t) => t.worker.terminate()));
      all.clear();
    },
  };
}

const shared = new Map<string, PdfExtractor>();

/**
 * The process's extractor for these limits, kept across runs: a thread takes seconds to load pdf.js (under tsx),
 * so runs in one process (the API's demo indexing, tests) reuse its idle threads, which never keep the process alive.
 */
export function sharedPdfExtractor(overrides: Partial<ExtractLimits> = {}): PdfExtractor {
  const limits: ExtractLimits = { ...DEFAULT_EXTRACT_LIMITS, ...overrides };
  const key = JSON.stringify([limits.timeoutMs, limits.maxMemoryMb, limits.maxPages, limits.maxTextChars]);
  let extractor = shared.get(key);
  if (!extractor) {
    extractor = createPdfExtractor(limits);
    shared.set(key, extractor);
  }
  return extractor;
}

/** The process's extractor with the default limits, for callers without their own (tests, benchmarks). */
export function defaultPdfExtractor(): PdfExtractor {
  return sharedPdfExtractor();
}

/** Text per physical page of a PDF, under the default limits (or those of `extractor`). */
export async function extractPdfPages(bytes: Uint8Array, extractor: PdfExtractor = defaultPdfExtractor()): Promise<ExtractResult> {
  return extractor.extract(bytes);
}

/** Stage: downloaded bytes to page texts. */
export const extract: Stage = async (item, ctx) => {
  if (!item.content) throw new Error(`extract: document ${item.documentId} has no downloaded content`);
  const r = await extractPdfPages(item.content.bytes, ctx.extractor ?? defaultPdfExtractor());
  if (!r.ok) {
    return {
      ...item,
      outcome: r.kind === 'needs_ocr' ? { kind: 'needs_ocr', reason: r.reason } : { kind: 'failed', reason: `extract: ${r.reason}` },
    };
  }
  return { ...item, pages: r.pages };
};
