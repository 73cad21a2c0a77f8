import type { FieldError } from './types.js';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'Gone'
  | 'RequestEntityTooLarge'
  | 'Unauthorized'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'InternalError'
  | 'Expired'
  | 'Forbidden';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { reason: string; message: string; field?: string }[];
}

/** A metav1.Status failure; thrown anywhere in a handler, written by the server. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `configmaps "x"` or `sandboxes.sandflow.io "x"`, the way kube-apiserver names a resource. */
export function qualified(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export const notFound = (resource: string, group: string, name: string) =>
  new StatusError(404, 'NotFound', `${qualified(resource, group)} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });

export const alreadyExists = (resource: string, group: string, name: string) =>
  new StatusError(409, 'AlreadyExists', `${qualified(resource, group)} "${name}" already exists`, {
    name,
    group,
    kind: resource,
  });

export const conflict = (resource: string, group: string, name: string, why: string) =>
  new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(resource, group)} "${name}": ${why}`,
    { name, group, kind: resource },
  );

export const staleResourceVersion = (resource: string, group: string, name: string) =>
  conflict(
    resource,
    group,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );

export const badRequest = (message: string) => new StatusError(400, 'BadRequest', message);

export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const list = errors.map((e) => `${e.field}: ${e.message}`);
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualified(kind, group)} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field })),
  });
}

export const methodNotAllowed = () =>
  new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');

export const unauthorized = () => new StatusError(401, 'Unauthorized', 'Unauthorized');

export const gone = (message: string) => new StatusError(410, 'Expired', message);
