import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';

const botCheck = { provider: 'turnstile', secret: 'server-only-secret', siteKey: 'site-key-1' } as const;

let plain: Harness;
let guarded: Harness;
beforeAll(async () => {
  [plain, guarded] = await Promise.all([createHarness(), createHarness({ config: { botCheck } })]);
}, 60_000);
afterEach(() => vi.unstubAllGlobals());
afterAll(() => Promise.all([plain.close(), guarded.close()]));

const registration = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.test',
  password: 'Engine-42',
  use_invitation: false,
  organization: 'Analytical',
};

describe('GET /illumina/preferences', () => {
  it('answers bot_check null without a bot check', async () => {
    const res = await plain.request.get('/api/v0/illumina/preferences');
    expect(res.body).toEqual({ result: { allow_new_organization: true, bot_check: null }, status: 200 });
  });

  it('names the provider and the site key of a configured bot check, never the secret', async () => {
    const res = await guarded.request.get('/api/v0/illumina/preferences');
    expect(res.body.result).toEqual({
      allow_new_organization: true,
      bot_check: { provider: 'turnstile', site_key: 'site-key-1' },
    });
    expect(res.text).not.toContain(botCheck.secret);
  });
});

describe('POST /user with a bot check', () => {
  /** Answers the provider's siteverify with `success`, recording what was asked. */
  function stubSiteverify(success: boolean) {
    const asked: { url: string; form: URLSearchParams }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        asked.push({ url, form: new URLSearchParams(init.body as URLSearchParams) });
        return new Response(JSON.stringify({ success }), { headers: { 'content-type': 'application/json' } });
      }),
    );
    return asked;
  }

  it.each([
    ['without a token', undefined, true],
    ['with a token the provider rejects', 'bad-token', false],
  ])('refuses a registration %s (422 naming re_captcha_token)', async (_what, token, success) => {
    stubSiteverify(success);
    const res = await guarded.request
      .post('/api/v0/user')
      .send({ ...registration, ...(token ? { re_captcha_token: token } : {}) });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      code: 'bot_check_failed',
      message: 're_captcha_token: bot check failed',
    });
    expect(await guarded.db('users').where({ email: registration.email }).first()).toBeUndefined();
  });

  it("registers with a token the provider accepts, verified with the secret at the provider's siteverify", async () => {
    const asked = stubSiteverify(true);
    const res = await guarded.request
      .post('/api/v0/user')
      .send({ ...registration, email: 'grace@example.test', re_captcha_token: 'good-token' });
    expect(res.body).toEqual({ result: true, status: 200 });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.url).toBe('https://challenges.cloudflare.com/turnstile/v0/siteverify');
    expect(asked[0]!.form.get('secret')).toBe(botCheck.secret);
    expect(asked[0]!.form.get('response')).toBe('good-token');
  });
});
