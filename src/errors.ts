/**
 * One error type for everything the service reports to a client, with a closed set of codes
 * (CONTRACT section 3). `toErrorBody` is the only place an error becomes a response body.
 */
export const ERROR_CODES = [
  'invalid_request',
  'ambiguous_project_id',
  'unknown_registry',
  'unauthorized',
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function codeToStatus(code: ErrorCode): 400 | 401 | 404 | 405 | 413 | 415 | 429 | 500 | 503 {
  switch (code) {
    case 'invalid_request':
    case 'ambiguous_project_id':
    case 'unknown_registry':
      return 400;
    case 'unauthorized':
      return 401;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
  }
}

export interface ErrorDetail {
  /** Dotted path of the offending field, e.g. `projectList.2.registry`; empty for the body itself. */
  path?: string;
  message: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After or Allow. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details ?? [];
    this.headers = opts.headers ?? {};
  }

  get status(): ReturnType<typeof codeToStatus> {
    return codeToStatus(this.code);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetail[]; requestId?: string };
}

export function toErrorBody(err: AppError, requestId?: string): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      details: err.details,
      ...(requestId ? { requestId } : {}),
    },
  };
}

/**
 * The stores answer, but what they hold is not ready to serve yet (the demo documents still being indexed): GET
 * /readyz answers 503 with this message, which says what is awaited, instead of "<store> is unavailable".
 */
export class NotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotReadyError';
  }
}

/**
 * A backing store or remote service could not be reached. Services translate it to `unavailable` (503);
 * `retryable` tells callers (the worker's retry policy) whether trying again can help.
 */
export class DependencyError extends Error {
  readonly dependency: string;
  readonly retryable: boolean;
  constructor(dependency: string, message: string, opts: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'DependencyError';
    this.dependency = dependency;
    this.retryable = opts.retryable ?? true;
  }
}

/** The vector index was built with another embedder than the one configured now. */
/**
 * The EMBEDDER setting that builds vectors of this embedder id (`use-lite-512` -> `use`, `openai:m@1536` ->
 * `openai:m`, `onnx:<model>` as is), or null for an id no setting gives. The id may be followed by " (...)".
 */
export function embedderSettingFor(embedderId: string): string | null {
  const id = embedderId.split(' (')[0]?.trim() ?? '';
  if (/^use-lite-\d+$/.test(id)) return 'use';
  if (/^onnx:\S+$/.test(id)) return id;
  const openai = /^openai:([^@\s]+)(@\d+)?$/.exec(id);
  if (openai) return `openai:${openai[1]}`;
  return null;
}

export class EmbedderMismatchError extends Error {
  readonly indexEmbedder: string;
  readonly configuredEmbedder: string;
  constructor(indexEmbedder: string, configuredEmbedder: string) {
    const setting = embedderSettingFor(indexEmbedder);
    super(
      `the vector index was built with embedder "${indexEmbedder}" but "${configuredEmbedder}" is configured; ` +
        `re-index with \`npm run ingest -- --all --reindex\`` +
        (setting ? ` or set EMBEDDER=${setting}` : ''),
    );
    this.name = 'EmbedderMismatchError';
    this.indexEmbedder = indexEmbedder;
    this.configuredEmbedder = configuredEmbedder;
  }
}
