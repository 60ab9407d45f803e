import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface StaticServer {
  /** e.g. http://127.0.0.1:43123 */
  baseUrl: string;
  /** host:port, for DOWNLOAD_ALLOW_HOSTS. */
  hostPort: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/**
 * A real HTTP server on 127.0.0.1 serving files of `root` under `mount` (e.g. `/pdf` -> corpus/pdf), plus
 * optional handlers tried first (return true when handled) for fault scenarios.
 */
export async function startStaticServer(opts: { root?: string; mount?: string; handlers?: RouteHandler[] }): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(url.pathname);
    for (const h of opts.handlers ?? []) {
      if (await h(req, res)) return;
    }
    const mount = opts.mount ?? '';
    if (opts.root && url.pathname.startsWith(`${mount}/`)) {
      const rel = decodeURIComponent(url.pathname.slice(mount.length + 1));
      const file = path.resolve(opts.root, rel);
      if (file.startsWith(path.resolve(opts.root) + path.sep)) {
        try {
          const st = statSync(file);
          if (st.isFile()) {
            const type = file.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream';
            res.writeHead(200, { 'content-type': type, 'content-length': st.size });
            createReadStream(file).pipe(res);
            return;
          }
        } catch {
          // fall through to 404
        }
      }
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
