import type { CookieOptions, Response } from 'express';
import type { ApiConfig } from '../config.js';
import type { SessionTokens } from '../services/tokens.js';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './route.js';

const options = (config: ApiConfig, seconds: number): CookieOptions => ({
  httpOnly: true,
  sameSite: 'strict',
  secure: config.secureCookies,
  path: '/api/v0',
  maxAge: seconds * 1000,
});

/** The console's session: both tokens in httpOnly, SameSite=Strict cookies. */
export function setSessionCookies(res: Response, tokens: SessionTokens, config: ApiConfig): void {
  res.cookie(ACCESS_COOKIE, tokens.access_token, options(config, config.accessTokenSeconds));
  res.cookie(REFRESH_COOKIE, tokens.refresh_token, options(config, config.refreshTokenSeconds));
}

export function clearSessionCookies(res: Response, config: ApiConfig): void {
  const { maxAge: _maxAge, ...rest } = options(config, 0);
  res.clearCookie(ACCESS_COOKIE, rest);
  res.clearCookie(REFRESH_COOKIE, rest);
}
