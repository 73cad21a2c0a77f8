import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { DigestVerifier, sha256Digest } from './digest.js';

const bytes = Buffer.from('layer bytes');

describe('DigestVerifier', () => {
  it('passes matching bytes through unchanged', async () => {
    const out = await buffer(
      Readable.from([bytes]).pipe(new DigestVerifier(sha256Digest(bytes), bytes.length, 'img')),
    );
    expect(out).toEqual(bytes);
  });

  it.each([
    [
      'other content',
      Buffer.from('tampered!!!'),
      undefined,
      /img: blob sha256:[a-f0-9]{64} has the wrong content \(its bytes hash to sha256:/,
    ],
    ['a wrong size', bytes, 99, /img: blob sha256:[a-f0-9]{64} is 11 bytes, the manifest says 99/],
  ])(
    'fails the stream with DIGEST_MISMATCH on %s, naming the digest',
    async (_name, content, size, message) => {
      const expected = sha256Digest(bytes);
      const error = await buffer(
        Readable.from([content]).pipe(new DigestVerifier(expected, size, 'img')),
      ).catch((e) => e);
      expect(error).toMatchObject({ code: 'DIGEST_MISMATCH' });
      expect(error.message).toMatch(message);
      expect(error.message).toContain(expected);
    },
  );
});
