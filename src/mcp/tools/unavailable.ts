import { AppError } from '../../errors.js';

/** The tool's service is not part of this server (as the HTTP routes answer: 503 `unavailable`). */
export function unavailable(what: string): AppError {
  return new AppError('unavailable', `${what} is not configured on this server`, {
    details: [{ dependency: what, message: `no ${what} service` }],
  });
}
