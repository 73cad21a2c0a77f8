/**
 * What went wrong, as the services see it. They throw these and know nothing of HTTP;
 * the one error middleware (http/respond.ts) maps each kind to a status and the
 * `{ result: null, status, error: { code, message } }` answer.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'too_many'
  | 'unavailable'
  | 'too_large'
  | 'bad_gateway';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable, machine-readable; the message is for people and names the field when there is one. */
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string, code = 'bad_request') =>
  new DomainError('bad_request', code, message);
export const unauthorized = (message = 'Unauthorized', code = 'unauthorized') =>
  new DomainError('unauthenticated', code, message);
export const forbidden = (message = 'Forbidden', code = 'forbidden') =>
  new DomainError('forbidden', code, message);
export const notFound = (what = 'Resource') => new DomainError('not_found', 'not_found', `${what} not found`);
export const conflict = (message: string) => new DomainError('conflict', 'conflict', message);
export const unprocessable = (message: string, code = 'invalid') => new DomainError('invalid', code, message);
/** A route of the current organization called with none (a super admin who has not chosen one). */
export const noOrganization = () =>
  unprocessable('organization: no current organization; choose one first', 'no_organization');
export const tooMany = (message: string) => new DomainError('too_many', 'too_many_requests', message);
/** A system the change depends on (Kubernetes) did not answer; retrying may work. */
export const unavailable = (code: string, message: string, cause?: unknown) =>
  new DomainError('unavailable', code, message, { cause });
/** A body over a configured limit (uploads); the message names the limit. */
export const tooLarge = (message: string) => new DomainError('too_large', 'too_large', message);
/** A system the API reached on the caller's behalf (an image registry) failed; the message names it. */
export const badGateway = (code: string, message: string, cause?: unknown) =>
  new DomainError('bad_gateway', code, message, { cause });
