import { z } from 'zod';
import { clearSessionCookies, setSessionCookies } from '../http/cookies.js';
import { unauthorized } from '../errors.js';
import { credentialLimiters } from '../http/rate-limit.js';
import { REFRESH_COOKIE, route, type RouteDefinition } from '../http/route.js';
import { tokenParams, zBool, zEmail, zName, zText } from '../http/schemas.js';
import { zDone, zSessionResult } from './results.js';
import type { Services } from '../services/index.js';
import { checkBot } from '../services/bot-check.js';

const password = zText(256, { min: 1, minMessage: 'Required', trim: false });

/** Only same-site paths are honoured as the back URL, so a link cannot bounce a session elsewhere. */
function safeBackUrl(header: string | undefined): string {
  return header && /^\/(?!\/)[^\s\\]*$/.test(header) ? header : '/dashboard';
}

const invitationResult = z
  .strictObject({ organization: z.string(), user: z.string().describe('The invited e-mail address.') })
  .nullable()
  .describe('null: unknown, used or expired.');

export function authRoutes(services: Services): RouteDefinition[] {
  const { accounts, tokens, config, members } = services;
  const limiters = credentialLimiters(services);
  return [
    route({
      method: 'post',
      path: '/login',
      tag: 'auth',
      summary:
        'Sign in; tokens in httpOnly cookies and in the body. The back URL comes in the X-Back-Url header.',
      limiters,
      body: z.object({
        username: zText(254, { min: 1, minMessage: 'Required' }),
        password,
        invitation_link: zText(200).optional(),
      }),
      result: zSessionResult.extend({
        url: z.string().describe('Where the console goes next (X-Back-Url, same-site paths only).'),
      }),
      async handler({ req, res, body }) {
        const session = await accounts.login(body.username, body.password, body.invitation_link || undefined);
        setSessionCookies(res, session, config);
        return { ...session, url: safeBackUrl(req.get('x-back-url')) };
      },
    }),
    route({
      method: 'get',
      path: '/logout',
      tag: 'auth',
      summary: 'Sign out: revokes the refresh-token family and clears the cookies.',
      result: zDone,
      async handler({ req, res }) {
        const refresh = (req.cookies as Record<string, string> | undefined)?.[REFRESH_COOKIE];
        if (refresh) await tokens.revoke(refresh);
        clearSessionCookies(res, config);
        return true;
      },
    }),
    route({
      method: 'get',
      path: '/refresh',
      tag: 'auth',
      summary:
        'A new token pair for the refresh token (Bearer header or cookie); reusing an old one revokes its family.',
      result: zSessionResult,
      async handler({ req, res }) {
        const header = req.get('authorization');
        const token = header?.startsWith('Bearer ')
          ? header.slice(7).trim()
          : (req.cookies as Record<string, string> | undefined)?.[REFRESH_COOKIE];
        if (!token) throw unauthorized('Missing refresh token');
        const { access_token, refresh_token } = await tokens.rotate(token);
        setSessionCookies(res, { access_token, refresh_token }, config);
        return { access_token, refresh_token };
      },
    }),
    route({
      method: 'post',
      path: '/password',
      tag: 'auth',
      summary: 'Mail a password-reset link (always 200).',
      limiters,
      body: z.object({ username: zEmail }),
      result: zDone,
      async handler({ body }) {
        await accounts.forgotPassword(body.username);
        return true;
      },
    }),
    route({
      method: 'post',
      path: '/password/:token',
      tag: 'auth',
      summary: 'Set a new password with a one-use reset token.',
      limiters,
      params: tokenParams,
      body: z.object({ password }),
      result: zDone,
      async handler({ params, body }) {
        await accounts.resetPassword(params.token, body.password);
        return true;
      },
    }),
    route({
      method: 'put',
      path: '/password',
      tag: 'auth',
      summary:
        'Change the password (spec 1 §5 strength rule); signs out every other session and answers fresh tokens for this one.',
      limiters,
      body: z.object({ old_password: password, new_password: password }),
      result: zSessionResult,
      async handler({ caller, body, res }) {
        const session = await accounts.changePassword(caller!, body.old_password, body.new_password);
        setSessionCookies(res, session, config);
        return session;
      },
    }),
    route({
      method: 'get',
      path: '/verify/:token',
      tag: 'auth',
      summary: 'Confirm an e-mail address.',
      params: tokenParams,
      result: zDone,
      async handler({ params }) {
        return accounts.verify(params.token);
      },
    }),
    route({
      method: 'post',
      path: '/user',
      tag: 'auth',
      summary: 'Register, joining by invitation or founding a new organization; mails a verification link.',
      limiters,
      body: z.object({
        first_name: zName,
        last_name: zName,
        email: zEmail,
        password,
        use_invitation: zBool.default(false),
        organization: zText(100).optional(),
        invitation_link: zText(200).optional(),
        re_captcha_token: zText(4096).optional(),
      }),
      result: zDone,
      async handler({ req, body }) {
        await checkBot(config, body.re_captcha_token, req.ip);
        return accounts.register(body);
      },
    }),
    route({
      method: 'get',
      path: '/invite/:token',
      tag: 'auth',
      summary: 'The organization and e-mail of a pending invitation.',
      params: tokenParams,
      result: invitationResult,
      async handler({ params }) {
        const invitation = await members.findInvitation(params.token);
        if (!invitation) return null;
        return { organization: invitation.organization_name, user: invitation.email };
      },
    }),
    route({
      method: 'get',
      path: '/invite/:token/accept',
      tag: 'auth',
      summary: 'Accept an invitation as the signed-in person.',
      params: tokenParams,
      result: zDone,
      async handler({ params, caller }) {
        await members.acceptInvitation(caller!, params.token);
        return true;
      },
    }),
  ];
}
