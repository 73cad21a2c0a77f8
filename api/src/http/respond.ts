import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { DomainError, type ErrorKind } from '../errors.js';

/** 404 for any path under /api/v0 that no route matched. */
export const unknownRoute: RequestHandler = (req, res) => {
  res.status(404).json({
    result: null,
    status: 404,
    error: { code: 'not_found', message: `no route ${req.method} ${req.path}` },
  });
};

/** The status of each kind of domain error: the one place failures meet HTTP. */
const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 422,
  too_many: 429,
  unavailable: 503,
  too_large: 413,
  bad_gateway: 502,
};

/** Every failure becomes `{ result: null, status, error: { code, message } }`. */
export function errorResponder(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let status = 500;
    let code = 'internal';
    let message = 'Something went wrong, please retry.';
    if (error instanceof DomainError) {
      ({ code, message } = error);
      status = STATUS[error.kind];
    } else if (isUndecodableParam(error)) {
      // The router could not percent-decode a path segment (e.g. %ED%A0%80, a lone surrogate).
      status = 400;
      code = 'bad_request';
      message = `path: ${error.message.replace(/^Failed to decode param/, 'cannot decode')} (not valid UTF-8)`;
    } else if (isBodyParserError(error)) {
      // Malformed JSON, oversized or undecodable bodies are the client's fault.
      status = error.status;
      code = error.type === 'entity.too.large' ? 'body_too_large' : 'invalid_body';
      message = error.type === 'entity.too.large' ? 'body: too large' : `body: ${error.message}`;
    } else {
      logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    }
    if (res.headersSent) return;
    res.status(status).json({ result: null, status, error: { code, message } });
  };
}

function isBodyParserError(error: unknown): error is { status: number; type: string; message: string } {
  const e = error as { status?: unknown; type?: unknown; expose?: unknown };
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && typeof e.type === 'string';
}

/** What Express's router throws when a path parameter is not valid percent-encoded UTF-8. */
function isUndecodableParam(error: unknown): error is URIError & { status: 400 } {
  return error instanceof URIError && (error as { status?: unknown }).status === 400;
}
