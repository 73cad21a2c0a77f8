import { Transform, type TransformCallback } from 'node:stream';

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

/** Passes bytes through until more than `maxBytes` went by, then fails with TOO_LARGE naming `subject`. */
export class UploadLimit extends Transform {
  size = 0;
  constructor(
    private readonly maxBytes: number | undefined,
    private readonly subject: string,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.maxBytes !== undefined && this.size > this.maxBytes) {
      callback(new BuilderError('TOO_LARGE', `${this.subject} is larger than ${this.maxBytes} bytes`));
    } else callback(null, chunk);
  }
}
