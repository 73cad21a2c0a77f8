import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';

let h: Harness;
let provider: Provider;
let providerServer: Server;

beforeAll(async () => {
  h = await createHarness();
  const apiHost = await h.listen();
  h.deps.config.publicUrl = `http://${apiHost}`;

  // The issuer URL must be known before the provider is built, so reserve the port first.
  const { createServer } = await import('node:http');
  providerServer = createServer();
  await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'sandflow',
        client_secret: 'sandflow-secret',
        redirect_uris: [`http://${apiHost}/api/v0/oidc/callback`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        email: 'sso@example.test',
        email_verified: true,
        given_name: 'Sso',
        family_name: 'User',
      }),
    }),
    cookies: { keys: ['test-cookie-key'] },
  });
  // Every interaction (login, consent) is finished at once for `sso-user`.
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/interaction/')) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const grant = new provider.Grant({ accountId: 'sso-user', clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId: 'sso-user' }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  });
  providerServer.on('request', provider.callback());
  h.deps.config.oidc = { issuer, clientId: 'sandflow', clientSecret: 'sandflow-secret' };
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => providerServer?.close(resolve));
  await h.close();
});

/** Follows redirects by hand, keeping cookies as a browser would (one host, so one jar). */
async function browse(start: string, until: (url: URL) => boolean) {
  const jar = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    const location = res.headers.get('location');
    if (!location) return { url, status: res.status, jar, body: await res.text() };
    url = new URL(location, url);
    if (until(url)) return { url, status: res.status, jar, body: '' };
  }
  throw new Error('too many redirects');
}

describe('single sign-on', () => {
  it('signs in through the provider, creating a verified account', async () => {
    const api = h.deps.config.publicUrl;
    const end = await browse(`${api}/api/v0/oidc/login`, (u) => u.pathname === '/dashboard');
    expect({ url: end.url.href }).toMatchObject({ url: `${api}/dashboard` });
    const access = end.jar.get('sf_access');
    expect(access).toBeTruthy();
    const me = await h.request.get('/api/v0/me').set('Authorization', `Bearer ${access}`);
    expect(me.body.result).toMatchObject({ email: 'sso@example.test', first_name: 'Sso', last_name: 'User' });
    expect(await h.db('users').where({ oidc_subject: 'sso-user' }).first('verified')).toEqual({
      verified: true,
    });
  });

  it('refuses a callback without the flow cookie', async () => {
    const res = await h.request.get('/api/v0/oidc/callback?code=x&state=y');
    expect(res.status).toBe(401);
  });
});
