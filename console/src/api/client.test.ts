import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../test-support/api-stub';
import { api, ApiError, inFlightStore, setSignedOutHandler, unwrap } from './client';

const me = { id: 'u-1' };

describe('the API client on 401 (spec 1 §8)', () => {
  afterEach(() => setSignedOutHandler(() => {}));

  it('refreshes once for calls that failed together, then retries each of them', async () => {
    let session = 'expired';
    const calls = stubApi((call) => {
      if (call.key === 'GET /refresh') {
        session = 'fresh';
        return { result: { access_token: 'a', refresh_token: 'r' } };
      }
      return session === 'fresh' ? { result: me } : { status: 401, error: 'Unauthorized' };
    });
    const answers = await Promise.all([unwrap(api.GET('/me')), unwrap(api.GET('/organization'))]);
    expect(answers).toEqual([me, me]);
    expect(calls.filter((c) => c.key === 'GET /refresh')).toHaveLength(1);
    expect(calls.map((c) => c.key).filter((k) => k !== 'GET /refresh')).toHaveLength(4);
  });

  it('signs the person out when the refresh fails, passing the 401 on', async () => {
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    stubApi(() => ({ status: 401, error: 'Unauthorized' }));
    await expect(unwrap(api.GET('/me'))).rejects.toMatchObject({ status: 401 });
    expect(signedOut).toHaveBeenCalledTimes(1);
  });

  it.each([
    [
      'a wrong password',
      (): Promise<unknown> => unwrap(api.POST('/login', { body: { username: 'a@b.c', password: 'x' } })),
    ],
    [
      'a verification link',
      (): Promise<unknown> => unwrap(api.GET('/verify/{token}', { params: { path: { token: 't' } } })),
    ],
  ])('does not refresh on %s', async (_what, call) => {
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    const calls = stubApi(() => ({ status: 401, error: 'Invalid credential' }));
    await expect(call()).rejects.toBeInstanceOf(ApiError);
    expect(calls.map((c) => c.key)).not.toContain('GET /refresh');
    expect(signedOut).not.toHaveBeenCalled();
  });

  it('counts requests in flight for the progress indicator', async () => {
    let release!: () => void;
    stubApi(() => new Promise((resolve) => (release = () => resolve({ result: me }))));
    const pending = unwrap(api.GET('/me'));
    await vi.waitFor(() => expect(inFlightStore.get()).toBe(1));
    release();
    await pending;
    expect(inFlightStore.get()).toBe(0);
  });

  it('turns a failed connection into a 500 without an answer', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(unwrap(api.GET('/me'))).rejects.toMatchObject({ status: 500 });
  });
});
