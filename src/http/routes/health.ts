import type { OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../../errors.js';
import type { AppDeps, AppEnv } from '../types.js';

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/** A check that hangs (a PostgreSQL host that drops packets) must not hang the probe. */
const CHECK_TIMEOUT_MS = 3000;

async function withTimeout(name: string, check: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /healthz: the process is up (liveness; touches nothing). GET /readyz: every backing store answers; otherwise
 * 503 `unavailable` naming the stores that do not. Both are served without an API key and without rate limiting.
 */
export function registerHealth(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', async (c) => {
    const results = await Promise.allSettled(deps.readiness.map((r) => withTimeout(r.name, () => r.check())));
    const failed = deps.readiness.flatMap((r, i) => {
      const result = results[i];
      return result?.status === 'rejected' ? [{ name: r.name, reason: result.reason as unknown }] : [];
    });
    if (failed.length > 0) {
      for (const f of failed) c.get('logger').warn({ err: f.reason, dependency: f.name }, 'readiness check failed');
      const names = failed.map((f) => f.name);
      throw new AppError('unavailable', `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} unavailable`, {
        details: failed.map((f) => ({ dependency: f.name, message: `${f.name} is unavailable` })),
      });
    }
    return c.json({ status: 'ready', checks: Object.fromEntries(deps.readiness.map((r) => [r.name, 'ok'])) });
  });
}
