// Kubernetes API errors as client-node raises them (ApiException carries the HTTP status in `code`).

/** The HTTP status of a client-node error (its `code`, or `statusCode` on older shapes). */
export const statusCode = (e: unknown): number | undefined => {
  const err = e as { code?: unknown; statusCode?: unknown } | null | undefined;
  if (typeof err?.code === 'number') return err.code;
  return typeof err?.statusCode === 'number' ? err.statusCode : undefined;
};

export const isNotFound = (e: unknown) => statusCode(e) === 404;
/** A write lost against a newer resourceVersion (or a field manager conflict). */
export const isConflict = (e: unknown) => statusCode(e) === 409 && reasonOf(e) !== 'AlreadyExists';
export const isAlreadyExists = (e: unknown) => statusCode(e) === 409 && reasonOf(e) !== 'Conflict';

/** The Status reason in the body of the error, when the server sent one. */
function reasonOf(e: unknown): string | undefined {
  const body = (e as { body?: unknown } | null | undefined)?.body;
  if (!body) return undefined;
  if (typeof body === 'object') return (body as { reason?: string }).reason;
  try {
    return (JSON.parse(String(body)) as { reason?: string }).reason;
  } catch {
    return undefined;
  }
}
