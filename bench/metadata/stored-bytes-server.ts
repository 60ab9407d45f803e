/**
 * The limit of this stack for one metadata request: a bare Hono app on @hono/node-server (same versions, same Node)
 * with one route that parses the same JSON body, reads the project's stored raw record from the same SQLite file and
 * returns those bytes as they are stored. No middleware, no validation, no derivation. Prints `{"port": n}` once
 * listening. Started by bench/metadata/main.ts with DATA_DIR set.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { openSqlite } from '../../src/adapters/sqlite/database.js';

const db = openSqlite({ dataDir: process.env.DATA_DIR ?? './data' });
const select = db.prepare<[string, number], { raw_json: string }>('SELECT raw_json FROM projects WHERE registry = ? AND project_id = ?');

const app = new Hono();
app.post('/project-documents/metadata', async (c) => {
  const body = await c.req.json<{ projectId: number; registry: string }>();
  const row = select.get('Verra', body.projectId);
  if (row === undefined) return c.json({ error: 'not found' }, 404);
  return c.body(row.raw_json, 200, { 'Content-Type': 'application/json' });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
