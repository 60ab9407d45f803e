import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { stopChild } from '../../src/child-process.js';
import type { PdfExtractor, Stage } from '../types.js';
import type { ExtractCaps, ExtractResult, OcrCaps } from './extract-pdf.js';
import type { ExtractRequest, ExtractResponse } from './extract-worker.js';

/**
 * Text per physical page with pdf-parse 2 (pdf.js), in child processes. A PDF that parses but carries no text layer
 * is `needs_ocr`; one that does not parse (truncated, encrypted, corrupt) fails with pdf.js's reason; one over a
 * limit fails naming the limit. pdf.js runs synchronously for as long as a page takes, and a hostile PDF (a page
 * whose content inflates to hundreds of MB, tens of thousands of pages) takes minutes and gigabytes: off the
 * ingestion process, a document is stopped at EXTRACT_TIMEOUT_MS (the process is killed), at
 * EXTRACT_MAX_MEMORY_MB of JavaScript heap (the process's --max-old-space-size), at EXTRACT_MAX_PAGES pages (before
 * any page is read), EXTRACT_MAX_TEXT_CHARS characters of text or a page of more than EXTRACT_MAX_PAGE_CHARS; the
 * run goes on with the next document. Text that is mostly one line repeated is `skipped` (text-plausibility.ts). A page
 * read by OCR (extract-pdf.ts) adds OCR_WALL_PER_CPU x OCR_PAGE_CPU_MS to its document's time, announced by the
 * process before the page starts, so the time limit still bounds a scanned document (the process itself gives up a
 * page at OCR_PAGE_CPU_MS of CPU time; this wall-clock allowance only catches a process that hangs).
 *
 * A process, not a worker thread: a thread's heap limit (resourceLimits) may abort the whole process instead of the
 * thread when V8 runs out of heap while the thread is torn down (nodejs/node#47224; seen here as "FATAL ERROR:
 * Reached heap limit" killing the test runner, ~IsolateData in its stack). A child that runs out of heap dies alone.
 */

export type { ExtractResult } from './extract-pdf.js';

export interface ExtractLimits extends ExtractCaps {
  /** Time for one document, from when its bytes reach the extraction process. */
  timeoutMs: number;
  /** JavaScript heap of an extraction process (V8 old generation), in MB. */
  maxMemoryMb: number;
  /**
   * Documents extracted at once, the others waiting their turn (their time limit starts with their turn). Extraction,
   * and OCR above all, is CPU-bound: more documents than cores only share the cores, so that all of them finish late
   * and the last one alone leaves a core idle. Default: the machine's cores.
   */
  processes?: number;
}

/**
 * OCR by default: a scanned page at 150 dpi reads in 2-4 s on one core (bench/README.md "OCR"), so 200 pages bound a
 * document's OCR to about ten minutes; lines under confidence 40 are a photograph's or a stamp's (measured there too); a page that takes
 * 30 s of CPU (ten times the usual) is a figure or a photograph more than text, and is left unread.
 */
export const DEFAULT_OCR_CAPS: OcrCaps = { maxPages: 200, dpi: 150, minConfidence: 40, pageCpuMs: 30_000 };

/**
 * Wall-clock time a document gets per OCR page, in multiples of the page's CPU time: a machine shared with other
 * work (the measurements of bench/README.md "OCR" ran at a load of 14 on 2 cores) stretches CPU time several-fold.
 */
export const OCR_WALL_PER_CPU = 10;

/**
 * The defaults leave wide room over the corpus's largest document (bench/README.md "Measurements cited by code") and over what a real
 * project document holds (rarely more than a few hundred pages or 2 million characters).
 */
export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  timeoutMs: 120_000,
  maxMemoryMb: 1024,
  maxPages: 3000,
  maxTextChars: 10_000_000,
  maxPageChars: 100_000,
  ocr: DEFAULT_OCR_CAPS,
};

/** How long a new process may take to load tsx and pdf.js before the document fails. */
const START_MS = 60_000;
/** Idle processes kept for the next documents (unreferenced: they do not keep the parent alive)... */
const MAX_IDLE = 4;
/** ... for this long: a process holds pdf.js's memory (the API indexes its demo documents once, then serves). */
const IDLE_MS = 30_000;
/** What V8 prints when a process runs out of heap ("FATAL ERROR: Reached heap limit Allocation failed - ..."). */
const HEAP_EXHAUSTED = /heap out of memory|Reached heap limit|Allocation failed/;

function workerSpec(): { boot: URL; entry: string } {
  const ext = new URL(import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js';
  return {
    // The embedders' boot module registers tsx inside the process when running from .ts sources.
    boot: new URL('../../src/adapters/embedders/worker-boot.mjs', import.meta.url),
    entry: new URL(`./extract-worker${ext}`, import.meta.url).href,
  };
}

interface Extraction {
  child: ChildProcess;
  ready: Promise<void>;
  /** Set while a document is in the process: settles it when the process dies. */
  onDeath: ((reason: string) => void) | null;
  /** Ends an idle process after IDLE_MS. */
  idleTimer: NodeJS.Timeout | null;
  dead: boolean;
}

const failed = (reason: string): ExtractResult => ({ ok: false, kind: 'failed', reason });

/** Keeps the parent alive while a document is in the process, not while the process waits idle. */
function hold(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/** pdf.js may be deep in a page that never yields: an extraction process is not asked to end, it is killed. */
function kill(child: ChildProcess): Promise<void> {
  return stopChild(child, 'SIGKILL');
}

/** A pool of extraction processes, one document per process at a time; reused until a limit kills one. */
export function createPdfExtractor(overrides: Partial<ExtractLimits> = {}): PdfExtractor {
  const limits: ExtractLimits = { ...DEFAULT_EXTRACT_LIMITS, ...overrides };
  const caps: ExtractCaps = {
    maxPages: limits.maxPages,
    maxTextChars: limits.maxTextChars,
    maxPageChars: limits.maxPageChars,
    ocr: limits.ocr,
  };
  const turns = new PQueue({ concurrency: Math.max(1, limits.processes ?? availableParallelism()) });
  const idle: Extraction[] = [];
  const all = new Set<Extraction>();
  let nextId = 1;
  let closed = false;

  /** Takes a process out of the pool for good: it died, or is about to be killed. */
  function retire(x: Extraction): void {
    x.dead = true;
    all.delete(x);
    const i = idle.indexOf(x);
    if (i >= 0) idle.splice(i, 1);
  }

  function spawn(): Extraction {
    const { boot, entry } = workerSpec();
    const child = fork(fileURLToPath(boot), [JSON.stringify({ entry })], {
      // Buffers travel as such; the parent's flags (a test runner's, --inspect) are not passed on.
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`],
      // pdf.js's warnings and V8's last words go to the parent's stderr, never into its JSON log lines on stdout.
      stdio: ['ignore', 2, 'pipe', 'ipc'],
    });
    let outOfHeap = false;
    child.stderr?.on('data', (d: Buffer) => {
      if (HEAP_EXHAUSTED.test(d.toString())) outOfHeap = true;
      process.stderr.write(d);
    });
    const x: Extraction = { child, ready: Promise.resolve(), onDeath: null, idleTimer: null, dead: false };
    x.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the extraction process did not start within ${START_MS} ms`)), START_MS);
      child.once('message', (msg: ExtractResponse) => {
        clearTimeout(timer);
        if (msg.type === 'ready') resolve();
        else reject(new Error('the extraction process answered before it was ready'));
      });
      const die = (reason: string): void => {
        clearTimeout(timer);
        retire(x);
        reject(new Error(reason));
        x.onDeath?.(reason);
      };
      child.on('error', (err) => die(`the extraction process failed (${err.message})`));
      child.on('exit', (code, signal) => {
        // The stderr pipe may still hold V8's message: read it to its end before naming the cause.
        const name = (): void =>
          die(
            outOfHeap
              ? `extraction exceeded the memory limit of ${limits.maxMemoryMb} MB (EXTRACT_MAX_MEMORY_MB)`
              : `the extraction process exited (${signal ?? `code ${code}`})`,
          );
        if (child.stderr && !child.stderr.readableEnded) child.stderr.once('close', name);
        else name();
      });
    });
    x.ready.catch(() => undefined);
    all.add(x);
    return x;
  }

  async function run(x: Extraction, bytes: Uint8Array): Promise<ExtractResult> {
    await x.ready;
    const id = nextId++;
    const ocrPageMs = OCR_WALL_PER_CPU * (limits.ocr?.pageCpuMs ?? 0);
    return new Promise<ExtractResult>((resolve) => {
      let ocrPages = 0;
      const onTimeout = (): void => {
        x.onDeath = null;
        retire(x);
        x.child.off('message', onMessage);
        void kill(x.child);
        const allowed = limits.timeoutMs + ocrPages * ocrPageMs;
        resolve(
          failed(
            ocrPages === 0
              ? `extraction took longer than the limit of ${limits.timeoutMs} ms (EXTRACT_TIMEOUT_MS)`
              : `extraction took longer than the limit of ${allowed} ms (EXTRACT_TIMEOUT_MS + ${ocrPages} OCR page(s) x ${ocrPageMs} ms)`,
          ),
        );
      };
      const deadline = Date.now() + limits.timeoutMs;
      let timer = setTimeout(onTimeout, limits.timeoutMs);
      const onMessage = (msg: ExtractResponse): void => {
        if (msg.type === 'ready' || msg.id !== id) return;
        if (msg.type === 'ocr-page') {
          ocrPages++;
          clearTimeout(timer);
          timer = setTimeout(onTimeout, Math.max(0, deadline + ocrPages * ocrPageMs - Date.now()));
          return;
        }
        clearTimeout(timer);
        x.child.off('message', onMessage);
        x.onDeath = null;
        resolve(msg.result);
      };
      x.onDeath = (reason) => {
        clearTimeout(timer);
        x.child.off('message', onMessage);
        resolve(failed(reason));
      };
      x.child.on('message', onMessage);
      const req: ExtractRequest = { id, bytes, caps };
      x.child.send(req);
    });
  }

  return {
    async extract(bytes) {
      if (closed) throw new Error('extract: the PDF extractor is closed');
      return (await turns.add(() => extractInProcess(bytes))) as ExtractResult;
    },
    async close() {
      closed = true;
      // Documents still waiting their turn are not dropped: each gets its turn and fails at once (closed).
      idle.length = 0;
      for (const x of all) if (x.idleTimer) clearTimeout(x.idleTimer);
      await Promise.all([...all].map((x) => kill(x.child)));
      all.clear();
    },
  };

  async function extractInProcess(bytes: Uint8Array): Promise<ExtractResult> {
    if (closed) return failed('the PDF extractor was closed');
    const x = idle.pop() ?? spawn();
    if (x.idleTimer) clearTimeout(x.idleTimer);
    x.idleTimer = null;
    hold(x.child, true);
    let result: ExtractResult;
    try {
      result = await run(x, bytes);
    } catch (err) {
      void kill(x.child);
      return failed(err instanceof Error ? err.message : String(err));
    }
    if (!x.dead && !closed && idle.length < MAX_IDLE) {
      hold(x.child, false);
      idle.push(x);
      x.idleTimer = setTimeout(() => {
        retire(x);
        void kill(x.child);
      }, IDLE_MS);
      x.idleTimer.unref();
    } else if (!x.dead) {
      retire(x);
      void kill(x.child);
    }
    return result;
  }
}

/**
 * Text per physical page of a PDF. Without an extractor (tests and benchmarks that read a few files), a pool with the
 * default limits is started for the call and closed after it; the pipeline, the queue worker and the demo seeding
 * pass the one their composition root built.
 */
export async function extractPdfPages(bytes: Uint8Array, extractor?: PdfExtractor): Promise<ExtractResult> {
  if (extractor) return extractor.extract(bytes);
  const own = createPdfExtractor();
  try {
    return await own.extract(bytes);
  } finally {
    await own.close();
  }
}

/** Stage: downloaded bytes to page texts. */
export const extract: Stage = async (item, ctx) => {
  if (!item.content) throw new Error(`extract: document ${item.documentId} has no downloaded content`);
  const r = await ctx.extractor.extract(item.content.bytes);
  if (!r.ok) {
    switch (r.kind) {
      case 'needs_ocr':
        return { ...item, outcome: { kind: 'needs_ocr', reason: r.reason } };
      case 'skipped':
        return { ...item, outcome: { kind: 'skipped', reason: `extract: ${r.reason}` } };
      case 'failed':
        return { ...item, outcome: { kind: 'failed', reason: `extract: ${r.reason}` } };
    }
  }
  return { ...item, pages: r.pages, ocrPages: r.ocrPages };
};
