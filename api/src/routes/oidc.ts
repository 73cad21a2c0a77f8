import * as oidc from 'openid-client';
import { z } from 'zod';
import { setSessionCookies } from '../http/cookies.js';
import { DomainError, unauthorized } from '../errors.js';
import { HANDLED, route, type RouteDefinition } from '../http/route.js';
import { zText } from '../http/schemas.js';
import type { Services } from '../services/index.js';

const FLOW_COOKIE = 'sf_oidc';

/**
 * Optional single sign-on with any OIDC provider (authorization code + PKCE). The
 * routes always exist; without configuration they answer 404.
 */
export function oidcRoutes(services: Services): RouteDefinition[] {
  const { config, accounts } = services;
  let discovered: Promise<oidc.Configuration> | undefined;
  const redirectUri = () => `${config.publicUrl}/api/v0/oidc/callback`;

  function provider(): Promise<oidc.Configuration> {
    const settings = config.oidc;
    if (!settings) throw new DomainError('not_found', 'not_found', 'single sign-on is not configured');
    const issuer = new URL(settings.issuer);
    discovered ??= oidc
      .discovery(
        issuer,
        settings.clientId,
        settings.clientSecret,
        undefined,
        issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined; // try again on the next sign-in
        throw error;
      });
    return discovered;
  }

  return [
    route({
      method: 'get',
      path: '/oidc/login',
      tag: 'auth',
      summary: 'Start single sign-on: redirects to the identity provider.',
      raw: { status: 302, description: 'Redirect to the identity provider.' },
      async handler({ res }) {
        const configuration = await provider();
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(configuration, {
          redirect_uri: redirectUri(),
          scope: 'openid email profile',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        });
        // Lax, not Strict: the provider's redirect back is a cross-site navigation.
        res.cookie(FLOW_COOKIE, JSON.stringify({ verifier, state }), {
          httpOnly: true,
          sameSite: 'lax',
          secure: config.secureCookies,
          path: '/api/v0/oidc',
          maxAge: 10 * 60_000,
        });
        res.redirect(302, url.href);
        return HANDLED;
      },
    }),
    route({
      method: 'get',
      path: '/oidc/callback',
      tag: 'auth',
      summary: 'The identity provider returns here; signs in and redirects to the console.',
      query: z.object({ code: zText(2000).optional(), state: zText(500).optional() }).loose(),
      raw: { status: 302, description: 'Signed in (session cookies set): redirect to the console.' },
      async handler({ req, res }) {
        const configuration = await provider();
        const flow = z
          .object({ verifier: z.string(), state: z.string() })
          .safeParse(safeJson((req.cookies as Record<string, string>)[FLOW_COOKIE]));
        if (!flow.success) throw unauthorized('single sign-on flow expired');
        const current = new URL(req.originalUrl, config.publicUrl);
        const tokens = await oidc
          .authorizationCodeGrant(configuration, current, {
            pkceCodeVerifier: flow.data.verifier,
            expectedState: flow.data.state,
          })
          .catch(() => {
            throw unauthorized('single sign-on failed');
          });
        const idClaims = tokens.claims();
        if (!idClaims) throw unauthorized('single sign-on failed');
        // Providers may keep profile claims out of the ID token; userinfo has them.
        const claims =
          typeof idClaims.email === 'string'
            ? idClaims
            : {
                ...(await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)),
                sub: idClaims.sub,
              };
        const session = await accounts.signInWithOidc({
          sub: claims.sub,
          email: typeof claims.email === 'string' ? claims.email : undefined,
          given_name: typeof claims.given_name === 'string' ? claims.given_name : undefined,
          family_name: typeof claims.family_name === 'string' ? claims.family_name : undefined,
          email_verified: claims.email_verified !== false,
        });
        res.clearCookie(FLOW_COOKIE, { path: '/api/v0/oidc' });
        setSessionCookies(res, session, config);
        res.redirect(302, `${config.publicUrl}/dashboard`);
        return HANDLED;
      },
    }),
  ];
}

function safeJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
