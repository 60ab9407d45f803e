import type { OpenAPIHono } from '@hono/zod-openapi';
import { AppError, NotReadyError } from '../../errors.js';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';

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

/** What a failed check says: what is awaited for a NotReadyError, else only that the store is unavailable. */
function failureMessage(name: string, reason: unknown): string {
  return reason instanceof NotReadyError ? reason.message : `${name} is unavailable`;
}

/** Seconds a client waits before asking /readyz again while content is being prepared (NotReadyError). */
const NOT_READY_RETRY_SECONDS = 5;

/**
 * GET /healthz: the process is up (liveness; touches nothing). GET /readyz: every backing store answers and holds
 * what it should (the demo documents indexed, with DEMO_DATA); otherwise 503 `unavailable` naming the stores that do
 * not, or saying what is still being prepared (with Retry-After). Both are served without an API key and without rate
 * limiting.
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
      const down = failed.filter((f) => !(f.reason instanceof NotReadyError));
      for (const f of down) c.get('logger').warn({ err: f.reason, dependency: f.name }, 'readiness check failed');
      const names = down.map((f) => f.name);
      const details = failed.map((f) => ({ dependency: f.name, message: failureMessage(f.name, f.reason) }));
      if (down.length === 0) {
        // Nothing is down, something is on its way: say what, and when to ask again.
        throw new AppError('unavailable', details.map((d) => d.message).join('; '), {
          details,
          headers: { 'Retry-After': String(NOT_READY_RETRY_SECONDS) },
        });
      }
      throw new AppError('unavailable', `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} unavailable`, { details });
    }
    return c.json({ status: 'ready', checks: Object.fromEntries(deps.readiness.map((r) => [r.name, 'ok'])) });
  });
}
