import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page, type Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

/**
 * The search page in a real browser: Debian's Chromium (`apt-get install chromium`; never a downloaded browser)
 * driven by playwright-core, against the real API (`tsx src/main.ts`) serving the demo data on a free port.
 * Screenshots of each state go to test-results/browser/ (git-ignored).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TSX = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const SHOTS = path.join(repoRoot, 'test-results', 'browser');

interface Server {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  lines: string[];
  dataDir: string;
}

/** Starts the API on a free port with the demo data; resolves once it listens (and, if asked, once the demo is indexed). */
async function startServer(env: Record<string, string>, waitFor: 'listening' | 'demo documents indexed'): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'browser-e2e-'));
  const base: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k] !== undefined) base[k] = process.env[k];
  const child = spawn(TSX, ['src/main.ts'], {
    cwd: repoRoot,
    env: { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', DEMO_DATA: 'true', DATA_DIR: dataDir, ...env },
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let baseUrl = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not reach "${waitFor}" in 180 s: ${stderr}`)), 180_000);
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        try {
          const j = JSON.parse(line) as { msg?: string; port?: number };
          if (j.msg === 'listening' && typeof j.port === 'number') baseUrl = `http://127.0.0.1:${j.port}`;
          if (j.msg === waitFor && baseUrl !== '') {
            clearTimeout(timer);
            resolve();
          }
        } catch {
          // not a log line
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
  return { child, baseUrl, lines, dataDir };
}

async function stopServer(s: Server | undefined): Promise<void> {
  if (!s) return;
  if (s.child.exitCode === null) {
    const exited = new Promise((r) => s.child.once('exit', r));
    s.child.kill('SIGTERM');
    await exited;
  }
  rmSync(s.dataDir, { recursive: true, force: true });
}

/** Waits until the locator's text contains `text` (vitest's expect.poll; playwright-core ships no assertions). */
const hasText = (l: Locator, text: string | RegExp) =>
  expect.poll(async () => (await l.count()) > 0 && (await l.first().textContent()), { timeout: 15_000 }).toMatch(text);
const countOf = (l: Locator, n: number) => expect.poll(() => l.count(), { timeout: 15_000 }).toBe(n);
const visible = (l: Locator) => l.first().waitFor({ state: 'visible', timeout: 15_000 });
/** Waits until the element with this id has the keyboard focus. */
const focused = (page: Page, id: string) =>
  expect.poll(() => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""'), { timeout: 5_000 }).toBe(id);
const classOf = (l: Locator, cls: RegExp) =>
  expect.poll(async () => (await l.getAttribute('class')) ?? '', { timeout: 15_000 }).toMatch(cls);

const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });

interface Citation {
  id: number;
  projectId: number;
  documentTitle: string;
  uri: string;
  page: number;
  text: string;
  quote: string;
}
interface SearchResponse {
  answer: string;
  answered: boolean;
  citations: Citation[];
  projects: { projectId: number; answer?: string; answered?: boolean; citationIds?: number[] }[];
}

const isBatchSearch = (r: Response) => r.url().endsWith('/projects-documents/batch-search') && r.request().method() === 'POST';

describeWithService(
  'the search page in Chromium',
  { available: existsSync(CHROMIUM), why: `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` },
  () => {
    let server: Server | undefined;
    let browser: Browser | undefined;
    let context: BrowserContext;
    /** Every URL the browser asked for: none may leave the service's origin. */
    const requested: string[] = [];

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      [server, browser] = await Promise.all([
        startServer({}, 'demo documents indexed'),
        chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
      ]);
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.on('request', (r) => requested.push(r.url()));
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      await stopServer(server);
    });

    const open = async (query = ''): Promise<Page> => {
      const page = await context.newPage();
      await page.goto(`${server?.baseUrl}/${query}`);
      // The page lists every project at once (no words, no filters).
      await page.locator('#find-status', { hasText: 'found' }).waitFor();
      return page;
    };

    const find = async (page: Page, words: string): Promise<void> => {
      await page.fill('#q', words);
      const done = page.waitForResponse((r) => r.url().endsWith('/projects/search'));
      await page.press('#q', 'Enter');
      await done;
      await page.locator('#find-status:not(.busy)').waitFor();
    };

    const ask = async (page: Page, question: string): Promise<SearchResponse> => {
      await page.fill('#question', question);
      // The answer is held back until the progress state has been seen: a fast search would otherwise clear it
      // before the test looks.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/projects-documents/batch-search', async (route) => {
        await held;
        await route.continue();
      });
      const response = page.waitForResponse(isBatchSearch);
      await page.click('#ask-button');
      // The progress state shows while the search runs (set before the request leaves, cleared when it is answered).
      await page.locator('#ask-status.busy').waitFor();
      expect(await page.locator('#ask-button').isDisabled()).toBe(true);
      release();
      const body = (await (await response).json()) as SearchResponse;
      await page.locator('#ask-status:not(.busy)').waitFor();
      await page.unroute('**/projects-documents/batch-search');
      return body;
    };

    it('finds a project by a word of its name, picks two, asks, and follows a marker to its cited passage and page', async () => {
      const page = await open();
      await shot(page, '1-start');
      await find(page, 'cookstoves');
      const results = page.locator('#results li');
      await countOf(results, 1);
      await hasText(results.first(), 'Kisaru Highlands Efficient Cookstoves (demo)');
      await hasText(results.first(), /\d+ indexed documents?/);
      await shot(page, '2-found-by-name');

      await find(page, 'rio verde');
      await page.getByLabel(/Rio Verde Valley Agroforestry/).check();
      await find(page, 'sundara');
      await page.getByLabel(/Sundara/).check();
      await countOf(page.locator('#picked li'), 2);

      const res = await ask(page, 'What did the validator find?');
      await visible(page.locator('#answer-area'));
      expect(res.citations.length).toBeGreaterThan(0);
      await shot(page, '3-answer');

      const marker = page.locator('#answer a[href^="#citation-"]').first();
      await visible(marker);
      const n = Number(((await marker.getAttribute('href')) ?? '').replace('#citation-', ''));
      await marker.click();
      const item = page.locator(`#citation-${n}`);
      await focused(page, `citation-${n}`);
      const cited = res.citations.find((c) => c.id === n);
      expect(cited).toBeDefined();
      if (!cited) return;
      await hasText(item, cited.documentTitle);
      await hasText(item, `page ${cited.page}`);
      const link = item.locator('a.open-doc');
      const href = (await link.getAttribute('href')) ?? '';
      expect(href).toBe(`${cited.uri}#page=${cited.page}`);
      expect(href).toMatch(/\/demo\/documents\/[^/]+\.pdf#page=\d+$/);
      // The document behind the link is served by the service itself.
      const pdf = await fetch(`${server?.baseUrl}${new URL(href).pathname}`);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      // The quote is highlighted inside the passage (CONTRACT 2: a verbatim substring of `text`).
      expect(cited.text).toContain(cited.quote);
      await hasText(item.locator('mark'), cited.quote.replace(/\s+/g, ' ').slice(0, 40));
      await shot(page, '4-citation');
      // The search page's picture (docs/search-page.png, in docs/search-page.md): the answer and its first sources, at a laptop's size.
      await page.setViewportSize({ width: 1000, height: 930 });
      await page.locator('#ask-title').scrollIntoViewIfNeeded();
      await page.evaluate('window.scrollTo(0, 0)');
      await shot(page, 'readme', false);
      await page.setViewportSize({ width: 1280, height: 900 });

      // The selection and question are in the URL: the link alone reproduces the answer.
      const url = new URL(page.url());
      expect(url.searchParams.get('projects')).toBe('Verra:900001,Verra:900004');
      expect(url.searchParams.get('question')).toBe('What did the validator find?');
      const shared = await context.newPage();
      const again = shared.waitForResponse(isBatchSearch);
      await shared.goto(url.toString());
      await again;
      await countOf(shared.locator('#picked li'), 2);
      await hasText(shared.locator('#picked'), 'Rio Verde Valley Agroforestry Restoration (demo)');
      await visible(shared.locator('#citations li').first());
      await shot(shared, '5-shared-link');
      await shared.close();
      await page.close();
    }, 60_000);

    it("never asks a question typed while a shared link's projects load (the link's own question it does)", async () => {
      // The link's projects load slowly (their names, then their document types): a question typed meanwhile waits
      // for its author to ask it.
      const page = await context.newPage();
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/project-documents/batch-metadata', async (route) => {
        await held;
        await route.continue();
      });
      const searches: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/projects-documents/batch-search')) searches.push(r.url());
      });
      await page.goto(`${server?.baseUrl}/?projects=Verra:900002,Verra:900003`);
      await page.fill('#question', 'What is the crediting period?');
      release();
      await hasText(page.locator('#picked'), 'Kisaru Highlands Efficient Cookstoves (demo)');
      await visible(page.locator('#types-box'));
      await page.waitForTimeout(300);
      expect(searches).toEqual([]);
      expect(await page.locator('#ask-button').isDisabled()).toBe(false);
      await page.close();
    }, 60_000);

    it('shows a question the documents do not answer as not found', async () => {
      const page = await open('?projects=Verra:900002,Verra:900003');
      await countOf(page.locator('#picked li'), 2);
      const res = await ask(page, 'What is the airspeed velocity of an unladen swallow?');
      expect(res.answered).toBe(false);
      await visible(page.locator('#not-found'));
      await hasText(page.locator('#not-found'), 'Not found');
      await hasText(page.locator('#citations-title'), 'Closest passages');
      await shot(page, '6-not-found');
      await page.close();
    }, 60_000);

    it('marks an answer given on little evidence as a partial match, and a full answer not', async () => {
      const page = await open('?projects=Verra:900001');
      await countOf(page.locator('#picked li'), 1);
      const weak = await ask(page, 'Which risks do the smallholder farms face?');
      expect(weak.answered).toBe(true);
      expect(weak.answer).toMatch(/^The passages found may answer this only in part\. /);
      await visible(page.locator('#partial'));
      await hasText(page.locator('#partial'), 'Partial match');
      expect(await page.locator('#not-found').isHidden()).toBe(true);
      await shot(page, '6b-partial');
      const full = await ask(page, 'What did the validator find?');
      expect(full.answer).toMatch(/^All findings are closed/);
      expect(await page.locator('#partial').isHidden()).toBe(true);
      // Per project, the project whose answer is a partial match says so beside its name.
      await page.check('#per-project');
      const per = await ask(page, 'Which risks do the smallholder farms face?');
      expect(per.projects[0]?.answer).toMatch(/^The passages found may answer this only in part\. /);
      await hasText(page.locator('#per-project-answers .project-answer').first(), 'partial match: check its sources');
      await page.close();
    }, 60_000);

    it('shows per-project answers, each with its own citations', async () => {
      const page = await open('?projects=Verra:900001,Verra:900004');
      await page.check('#per-project');
      const res = await ask(page, 'What did the validator find?');
      expect(res.projects.every((p) => typeof p.answer === 'string' && Array.isArray(p.citationIds))).toBe(true);
      await countOf(page.locator('#per-project-answers .project-answer'), 2);
      await page.locator('#per-project-answers a[href^="#citation-"]').first().click();
      await visible(page.locator('#citations li').first().locator('mark'));
      expect(new URL(page.url()).searchParams.get('perProject')).toBe('1');
      await shot(page, '7-quote-per-project');
      await page.close();
    }, 60_000);

    it('shows an API error in words', async () => {
      const page = await open('?projects=Verra:900001');
      const res = page.waitForResponse(isBatchSearch);
      await page.fill('#question', '???');
      await page.click('#ask-button');
      expect((await res).status()).toBe(400);
      await classOf(page.locator('#ask-status'), /error/);
      await hasText(page.locator('#ask-status'), 'The request was refused: query: must contain a word');
      await shot(page, '8-api-error');
      await page.close();
    }, 60_000);

    it('works on a phone-sized screen: one column, no sideways scrolling, usable controls', async () => {
      const phone = await browser?.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      if (!phone) throw new Error('no browser');
      phone.on('request', (r) => requested.push(r.url()));
      const page = await phone.newPage();
      await page.goto(
        `${server?.baseUrl}/?projects=Verra:900001,Verra:900004&question=${encodeURIComponent('What did the validator find?')}`,
      );
      await page.locator('#citations li').first().waitFor();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      const [find, ask] = await Promise.all([page.locator('#find-title').boundingBox(), page.locator('#ask-title').boundingBox()]);
      expect(ask?.y ?? 0).toBeGreaterThan((find?.y ?? 0) + 100); // stacked, not side by side
      await shot(page, '9-phone-top', false);
      await page.locator('#answer-title').scrollIntoViewIfNeeded();
      await shot(page, '9-phone-answer', false);
      await phone.close();
    }, 60_000);

    it('sent no request outside the service', () => {
      const origin = server?.baseUrl ?? '';
      const outside = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
      expect(outside).toEqual([]);
      expect(requested.length).toBeGreaterThan(10);
    });

    describe('with API_KEYS set', () => {
      let secured: Server | undefined;
      beforeAll(async () => {
        secured = await startServer({ API_KEYS: 'key-one,key-two' }, 'listening');
      }, 120_000);
      afterAll(async () => {
        await stopServer(secured);
      });

      it('asks for the key in words, keeps it for the tab, then finds projects', async () => {
        const keyed = await browser?.newContext({ viewport: { width: 1280, height: 900 } });
        if (!keyed) throw new Error('no browser');
        const page = await keyed.newPage();
        await page.goto(`${secured?.baseUrl}/`);
        await hasText(page.locator('#find-status'), 'This service needs an API key');
        await focused(page, 'api-key');
        await shot(page, '10-key-needed');
        await page.fill('#api-key', 'key-two');
        const retried = page.waitForResponse((r) => r.url().endsWith('/projects/search'));
        await page.press('#api-key', 'Enter');
        expect((await retried).status()).toBe(200);
        await hasText(page.locator('#find-status'), '5 projects found');
        await find(page, 'wetland');
        await countOf(page.locator('#results li'), 1);
        await hasText(page.locator('#results li'), 'Northbrook');
        // Kept in session storage: a reload in the same tab needs no new key.
        await page.reload();
        await hasText(page.locator('#find-status'), 'found');
        expect(await page.evaluate<string | null>("sessionStorage.getItem('carbon-docs.apiKey')")).toBe('key-two');
        await shot(page, '11-key-accepted');
        await keyed.close();
      }, 60_000);
    });
  },
);
