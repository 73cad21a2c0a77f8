import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { ImageError } from './errors.js';

const DIGEST = /^sha256:[a-f0-9]{64}$/;

export function isDigest(value: string): boolean {
  return DIGEST.test(value);
}

export function assertDigest(value: string): string {
  if (!isDigest(value)) throw new ImageError('INVALID_REFERENCE', `"${value}" is not a sha256 digest`);
  return value;
}

export function sha256Digest(data: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/**
 * Passes bytes through and fails the stream at its end when they do not hash to `expected`
 * (or their count is not `size`), so a consumer never mistakes a corrupt blob for a good one.
 */
export class DigestVerifier extends Transform {
  private readonly hash = createHash('sha256');
  private length = 0;
  constructor(
    readonly expected: string,
    readonly size: number | undefined,
    readonly subject: string,
  ) {
    super();
    assertDigest(expected);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.length += chunk.length;
    callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    const actual = `sha256:${this.hash.digest('hex')}`;
    if (actual !== this.expected) {
      callback(
        new ImageError(
          'DIGEST_MISMATCH',
          `${this.subject}: blob ${this.expected} has the wrong content (its bytes hash to ${actual})`,
        ),
      );
    } else if (this.size !== undefined && this.length !== this.size) {
      callback(
        new ImageError(
          'DIGEST_MISMATCH',
          `${this.subject}: blob ${this.expected} is ${this.length} bytes, the manifest says ${this.size}`,
        ),
      );
    } else callback();
  }
}
