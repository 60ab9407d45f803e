import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { COUNTRY_NAMES } from '../../domain/countries.js';
import { knownRegistryNames } from '../../domain/registries.js';
import type { AppEnv } from '../env.js';

/** The search page (GET /) and its two assets; served without an API key (they hold no data: the page asks for one). */
export const WEB_PAGE_PATH = '/';
export const WEB_ASSETS_PREFIX = '/ui/';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web');

/**
 * Everything the page loads comes from this service: the policy makes the browser refuse anything else, so the page
 * works offline and sends no data to a third party.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

/** The page with the registries and countries the filters offer filled in; built once. */
export function renderWebPage(): string {
  const template = readFileSync(path.join(webDir, 'index.html'), 'utf8');
  const registries = knownRegistryNames()
    .map((r) => `<option>${escapeHtml(r)}</option>`)
    .join('');
  const countries = [...new Set(Object.values(COUNTRY_NAMES))]
    .sort((a, b) => a.localeCompare(b, 'en'))
    .map((c) => `<option value="${escapeHtml(c)}"></option>`)
    .join('');
  return template.replace('{{REGISTRY_OPTIONS}}', registries).replace('{{COUNTRY_OPTIONS}}', countries);
}

export function registerWebPage(app: OpenAPIHono<AppEnv>): void {
  const html = renderWebPage();
  const assets: Record<string, { body: string; type: string }> = {
    'app.js': { body: readFileSync(path.join(webDir, 'app.js'), 'utf8'), type: 'text/javascript; charset=utf-8' },
    'app.css': { body: readFileSync(path.join(webDir, 'app.css'), 'utf8'), type: 'text/css; charset=utf-8' },
  };
  const common = {
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'Referrer-Policy': 'no-referrer',
  };

  app.get(WEB_PAGE_PATH, (c) => c.body(html, 200, { ...common, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get(`${WEB_ASSETS_PREFIX}:name`, (c) => {
    const asset = assets[c.req.param('name')];
    if (asset === undefined) return c.notFound();
    return c.body(asset.body, 200, { ...common, 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });
}
