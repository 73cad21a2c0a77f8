import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import type { ApiConfig } from '../config.js';
import { tooMany as tooManyError } from '../errors.js';

const tooMany = () => tooManyError('Too many attempts, retry later');

/**
 * Login and password routes: one budget per client address and one per account (the
 * username or e-mail in the body), so neither a single address nor a botnet aimed at
 * one account gets unlimited guesses. Only failures count against the account. Both are
 * counted in the database (the services' `rateLimitStore`), so the budgets hold across API replicas.
 */
export function credentialLimiters(deps: {
  config: ApiConfig;
  rateLimitStore: (prefix: string) => Store;
}): RequestHandler[] {
  const { windowMs, perAccount, perAddress } = deps.config.rateLimit;
  const store = deps.rateLimitStore;
  const perAddressLimiter = rateLimit({
    store: store('credentials:address:'),
    windowMs,
    limit: perAddress,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    handler: (_req, _res, next) => next(tooMany()),
  });
  const perAccountLimiter = rateLimit({
    store: store('credentials:account:'),
    windowMs,
    limit: perAccount,
    standardHeaders: false,
    legacyHeaders: false,
    skipSuccessfulRequests: true,
    // The account is the username in the body (login, forgot password), else the
    // signed-in person (change password), else the reset token in the path.
    keyGenerator: (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const account = body.username ?? body.email;
      if (typeof account === 'string') return `account:${account.trim().toLowerCase()}`;
      const callerId = (res.locals as { callerId?: string }).callerId;
      if (callerId) return `user:${callerId}`;
      const token = (req.params as Record<string, string | undefined>).token;
      return token ? `token:${token}` : `address:${ipKeyGenerator(req.ip ?? '')}`;
    },
    handler: (_req, _res, next) => next(tooMany()),
  });
  return [perAddressLimiter, perAccountLimiter];
}
