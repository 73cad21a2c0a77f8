// Every failure of the image store is an ImageError: callers branch on `code`, people read `message`.
export type ImageErrorCode =
  | 'INVALID_REFERENCE'
  | 'NOT_FOUND'
  | 'PLATFORM_NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'UNREACHABLE'
  | 'DIGEST_MISMATCH'
  | 'INVALID_MANIFEST'
  | 'INVALID_CREDENTIALS'
  | 'REGISTRY_ERROR';

export class ImageError extends Error {
  override readonly name = 'ImageError';
  constructor(
    readonly code: ImageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
