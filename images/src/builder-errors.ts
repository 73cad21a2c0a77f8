// Failures of a sandbox builder that callers map to answers: NOT_FOUND (no such container, 404),
// TOO_LARGE (an upload over its limit, 413), BAD_PATH (a path that leaves the container or is not
// a file, 400), UNAVAILABLE (the machine cannot run builders, e.g. no bwrap, 503).
export type BuilderErrorCode = 'NOT_FOUND' | 'TOO_LARGE' | 'BAD_PATH' | 'UNAVAILABLE';

export class BuilderError extends Error {
  override readonly name = 'BuilderError';
  constructor(
    readonly code: BuilderErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
