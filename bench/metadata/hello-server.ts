/**
 * The baseline beside the metadata numbers: a bare Hono app on @hono/node-server (same versions, same Node), one
 * route, no middleware, no store. Prints `{"port": n}` once listening. Started by bench/metadata/main.ts.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'world' }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
