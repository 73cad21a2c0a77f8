import express from 'express';
import pino from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { DomainError, type ErrorKind } from '../errors.js';
import { errorResponder, unknownRoute } from './respond.js';

/** A small app with the real error middleware: a route with a path parameter, a JSON body, and throws. */
function app() {
  const a = express();
  a.use(express.json({ limit: '1kb' }));
  a.get('/item/:id', (req, res) => {
    res.json({ result: req.params.id, status: 200 });
  });
  a.post('/item', (req, res) => {
    res.json({ result: req.body as unknown, status: 200 });
  });
  a.get('/domain/:kind', (req) => {
    throw new DomainError(
      req.params.kind as ErrorKind,
      `${req.params.kind}_code`,
      `${req.params.kind} happened`,
    );
  });
  a.get('/crash', () => {
    throw new Error('a secret detail');
  });
  a.use(unknownRoute);
  a.use(errorResponder(pino({ level: 'silent' })));
  return supertest(a);
}

const envelope = (status: number, code: string, message: unknown) => ({
  result: null,
  status,
  error: { code, message },
});

describe('errorResponder', () => {
  it.each([
    ['a lone high surrogate', '/item/a%ED%A0%80b', 'a%ED%A0%80b'],
    ['a lone low surrogate', '/item/%ED%BF%BF', '%ED%BF%BF'],
    ['a truncated sequence', '/item/x%E2%82', 'x%E2%82'],
    ['a byte that starts no sequence', '/item/%FF', '%FF'],
  ])('answers 400 naming a path parameter that is not valid UTF-8 (%s)', async (_case, url, raw) => {
    const res = await app().get(url);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope(400, 'bad_request', `path: cannot decode '${raw}' (not valid UTF-8)`));
  });

  it.each([
    ['a percent-encoded space', '/item/a%20b', 'a b'],
    ['a surrogate pair (emoji)', '/item/%F0%9F%A7%AA', '🧪'],
    ['a literal percent sign', '/item/100%25', '100%'],
  ])('decodes valid UTF-8 in a path parameter (%s)', async (_case, url, value) => {
    const res = await app().get(url);
    expect(res.status).toBe(200);
    expect(res.body.result).toBe(value);
  });

  it.each([
    ['bad_request', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['too_large', 413],
    ['invalid', 422],
    ['too_many', 429],
    ['bad_gateway', 502],
    ['unavailable', 503],
  ] as const)('answers a %s domain error with %i and its code and message', async (kind, status) => {
    const res = await app().get(`/domain/${kind}`);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(envelope(status, `${kind}_code`, `${kind} happened`));
  });

  it.each([
    ['malformed JSON', '{"a": ', 400, 'invalid_body'],
    ['a body over the limit', JSON.stringify({ a: 'x'.repeat(2048) }), 413, 'body_too_large'],
  ])('answers %s as the client error it is', async (_case, text, status, code) => {
    const res = await app().post('/item').set('Content-Type', 'application/json').send(text);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(envelope(status, code, expect.stringMatching(/^body: \S/)));
  });

  it('answers anything else with a 500 that hides the detail', async () => {
    const res = await app().get('/crash');
    expect(res.status).toBe(500);
    expect(res.body).toEqual(envelope(500, 'internal', 'Something went wrong, please retry.'));
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it('answers a path no route matches with a 404 naming it', async () => {
    const res = await app().get('/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope(404, 'not_found', 'no route GET /nothing/here'));
  });
});
