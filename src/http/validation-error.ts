import type { z } from '@hono/zod-openapi';
import { AppError, type ErrorDetail } from '../errors.js';
import { isListTooLong } from './schemas/project-ref.js';

/** Dotted path of a zod issue (`projectList.2.registry`); empty for the body itself. */
function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join('.');
}

/**
 * Turns a failed request validation into the error CONTRACT 3 asks for: 413 when a project list is too long,
 * else 400 `invalid_request` whose message names the first offending field, with every issue in details.
 */
export function validationError(error: z.ZodError): AppError {
  const tooLong = error.issues.find(isListTooLong);
  if (tooLong !== undefined) {
    return new AppError('payload_too_large', `${issuePath(tooLong)}: ${tooLong.message}`, {
      details: [{ path: issuePath(tooLong), message: tooLong.message }],
    });
  }
  const details: ErrorDetail[] = error.issues.map((i) => ({ path: issuePath(i), message: i.message }));
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  const message = first === undefined ? 'invalid request body' : `${first.path === '' ? 'body' : first.path}: ${first.message}${more}`;
  return new AppError('invalid_request', message, { details });
}
