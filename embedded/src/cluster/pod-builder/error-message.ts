// What went wrong, in the words of whoever said it: the API server's Status message (the JSON body
// of client-node's ApiException) when there is one, else the error's own message.
export const messageOf = (error: unknown) => {
  const e = error as { body?: unknown; message?: string };
  const body = typeof e.body === 'string' ? e.body : undefined;
  try {
    return (body && (JSON.parse(body) as { message?: string }).message) || e.message || String(error);
  } catch {
    return e.message ?? String(error);
  }
};
