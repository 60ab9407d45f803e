import { describe, expect, it } from 'vitest';
import { isRetryableStatus, retryDelay, withRetry, type RetryPolicy, type RetryVerdict } from '../src/http-retry.js';

class Failure extends Error {
  constructor(
    message: string,
    readonly verdict: RetryVerdict,
  ) {
    super(message);
  }
}

const policy: RetryPolicy = { retries: 2, retryBaseDelayMs: 10, retryMaxDelayMs: 40, maxRetryAfterMs: 200 };
const classify = (err: Error): RetryVerdict => (err instanceof Failure ? err.verdict : { retryable: false, retryAfterMs: null });
const retryable = (retryAfterMs: number | null = null): RetryVerdict => ({ retryable: true, retryAfterMs });

/** A task that fails with the given verdicts in turn, then succeeds; counts its calls. */
function script(...verdicts: RetryVerdict[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    run: async (): Promise<string> => {
      const v = verdicts[calls++];
      if (v) throw new Failure(`failure ${calls}`, v);
      return 'done';
    },
  };
}

describe('retry policy', () => {
  it('retries the statuses a retry can help with, and no others', () => {
    for (const s of [408, 425, 429, 500, 502, 503, 504]) expect(isRetryableStatus(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 410, 501]) expect(isRetryableStatus(s)).toBe(false);
  });

  it('backs off exponentially with jitter up to the cap, and takes a Retry-After as given', () => {
    for (let i = 0; i < 50; i++) {
      expect(retryDelay(policy, 1, null)).toBeGreaterThanOrEqual(5);
      expect(retryDelay(policy, 1, null)).toBeLessThanOrEqual(10);
      expect(retryDelay(policy, 3, null)).toBeGreaterThanOrEqual(20);
      expect(retryDelay(policy, 3, null)).toBeLessThanOrEqual(40);
      expect(retryDelay(policy, 9, null)).toBeLessThanOrEqual(40);
    }
    expect(retryDelay(policy, 1, 150)).toBe(150);
  });

  it('retries a retryable failure and returns the later success', async () => {
    const task = script(retryable(), retryable());
    const waits: number[] = [];
    await expect(withRetry(task.run, policy, { classify, onRetry: (i) => waits.push(i.delayMs) })).resolves.toBe('done');
    expect(task.calls).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it('throws a failure that is not retryable at once', async () => {
    const task = script({ retryable: false, retryAfterMs: null });
    await expect(withRetry(task.run, policy, { classify })).rejects.toThrow('failure 1');
    expect(task.calls).toBe(1);
  });

  it('throws the last failure when the attempts run out', async () => {
    const task = script(retryable(), retryable(), retryable(), retryable());
    await expect(withRetry(task.run, policy, { classify })).rejects.toThrow('failure 3');
    expect(task.calls).toBe(3);
  });

  it('waits as long as Retry-After asks', async () => {
    const task = script(retryable(120));
    const t0 = Date.now();
    await withRetry(task.run, policy, { classify });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
  });

  it('gives up at once when Retry-After asks for longer than maxRetryAfterMs', async () => {
    const task = script(retryable(5_000));
    const t0 = Date.now();
    await expect(
      withRetry(task.run, policy, { classify, retryAfterTooLong: (err, ms) => new Error(`${err.message}: asked to wait ${ms} ms`) }),
    ).rejects.toThrow('failure 1: asked to wait 5000 ms');
    expect(task.calls).toBe(1);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('stops waiting when its signal aborts', async () => {
    const task = script(retryable(150), retryable(150));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped')), 50);
    await expect(withRetry(task.run, policy, { classify, signal: controller.signal })).rejects.toThrow('stopped');
    expect(task.calls).toBe(1);
  });
});
