import { describe, it } from 'vitest';

/**
 * Suites that need a real service (PostgreSQL, Qdrant, a provisioned model) skip when it is absent, unless
 * REQUIRE_SERVICES=1 (set by .ci/run): then the absence is a failing test, so CI cannot go green by skipping.
 */
export const requireServices = process.env.REQUIRE_SERVICES === '1';

export function describeWithService(
  name: string,
  availability: { available: boolean; why: string; required?: boolean },
  body: () => void,
): void {
  if (availability.available) {
    describe(name, body);
    return;
  }
  const required = availability.required ?? requireServices;
  if (required) {
    describe(name, () => {
      it('has its service available', () => {
        throw new Error(`${name}: ${availability.why} (required by REQUIRE_SERVICES=1)`);
      });
    });
  } else {
    // Said once per suite as the file loads: the default reporter shows skipped suites as a count only.
    console.warn(`skipped: ${name}: ${availability.why}`);
    describe.skip(`${name} (skipped: ${availability.why})`, body);
  }
}

export const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
