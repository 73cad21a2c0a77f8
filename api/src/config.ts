import { z } from 'zod';
import { decodeSecretsKey, SECRETS_KEY_VARIABLE } from './services/secret-box.js';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

export const BOT_CHECK_PROVIDERS = ['recaptcha', 'hcaptcha', 'turnstile'] as const;
export type BotCheckProvider = (typeof BOT_CHECK_PROVIDERS)[number];

/** A secrets key: the base64 of 32 bytes; empty is unset. Problems never repeat the value. */
const secretsKey = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === '') return undefined;
    const decoded = decodeSecretsKey(value);
    if ('key' in decoded) return decoded.key;
    ctx.addIssue({ code: 'custom', message: decoded.problem });
    return z.NEVER;
  });

const envSchema = z.object({
  SANDFLOW_PUBLIC_URL: z.string().url().default('http://localhost:8080'),
  SANDFLOW_JWT_SECRET: z.string().min(32).optional(),
  SANDFLOW_ADMIN_EMAIL: z.string().email().optional(),
  SANDFLOW_ADMIN_PASSWORD: z.string().min(1).optional(),
  SANDFLOW_SMTP_URL: z.string().optional(),
  SANDFLOW_MAIL_FROM: z.string().default('Sandflow <no-reply@sandflow.local>'),
  SANDFLOW_OIDC_ISSUER: z.string().url().optional(),
  SANDFLOW_OIDC_CLIENT_ID: z.string().optional(),
  SANDFLOW_OIDC_CLIENT_SECRET: z.string().optional(),
  SANDFLOW_BOT_CHECK_PROVIDER: z.enum(BOT_CHECK_PROVIDERS).optional(),
  SANDFLOW_BOT_CHECK_SECRET: z.string().optional(),
  SANDFLOW_BOT_CHECK_SITE_KEY: z.string().optional(),
  SANDFLOW_SECURE_COOKIES: bool,
  SANDFLOW_SECRETS_KEY: secretsKey,
  SANDFLOW_SECRETS_KEY_PREVIOUS: secretsKey,
  SANDFLOW_UPLOAD_MAX_BYTES: z.coerce.number().int().positive().optional(),
  SANDFLOW_TRUST_PROXY: z
    .string()
    .trim()
    .regex(
      /^(true|false|\d+|[\w.:/]+(\s*,\s*[\w.:/]+)*)$/,
      'true, false, a number of proxy hops, or a comma-separated list of proxy addresses/subnets (loopback, 10.0.0.0/8)',
    )
    .optional(),
});

export interface ApiConfig {
  /** Origin the console is served from; links in mails point here. */
  publicUrl: string;
  /** HMAC key for access tokens; a random one (per process) when unset. */
  jwtSecret: string;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  verificationTokenSeconds: number;
  resetTokenSeconds: number;
  invitationSeconds: number;
  admin: { email: string | undefined; password: string | undefined };
  smtpUrl: string | undefined;
  mailFrom: string;
  oidc: { issuer: string; clientId: string; clientSecret: string } | undefined;
  /** Registration's bot check: the secret verifies tokens, the site key is public (the console's widget). */
  botCheck: { provider: BotCheckProvider; secret: string; siteKey: string } | undefined;
  secureCookies: boolean;
  /**
   * Express's `trust proxy`: which reverse proxies' X-Forwarded-For to believe for the client's
   * address (the rate limits count per address). false: none — behind an ingress every request
   * would otherwise count against the ingress's one address, and trusting blindly lets a client
   * pick its own address.
   */
  trustProxy: boolean | number | string;
  /** Attempts per window on login and password routes, per account and per address. */
  rateLimit: { windowMs: number; perAccount: number; perAddress: number };
  /**
   * AES-256 keys of the credentials stored in the database (registry passwords; services/secret-box.ts):
   * `key` (SANDFLOW_SECRETS_KEY) seals and opens, `previousKey` (SANDFLOW_SECRETS_KEY_PREVIOUS) only
   * opens, during a rotation. No key: the API runs, stored values from before encryption are read as
   * they are, and storing a new password is refused (422). Never a random per-process key: a restart
   * would lose every stored password.
   */
  secrets: { key: Buffer | undefined; previousKey: Buffer | undefined };
  /** Realtime heartbeat interval. */
  heartbeatMs: number;
  /** The sandbox builder: largest upload into a container; how long a container outlives its last terminal socket. */
  builder: { uploadMaxBytes: number; terminalGraceMs: number };
}

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  // With a provider and a secret every registration needs a token, which only the widget
  // drawn with the site key can produce: without one nobody could register.
  if (e.SANDFLOW_BOT_CHECK_PROVIDER && e.SANDFLOW_BOT_CHECK_SECRET && !e.SANDFLOW_BOT_CHECK_SITE_KEY)
    throw new Error(
      'invalid configuration: SANDFLOW_BOT_CHECK_SITE_KEY: required with SANDFLOW_BOT_CHECK_PROVIDER and SANDFLOW_BOT_CHECK_SECRET (the sign-up page shows the bot-check widget with it)',
    );
  // The previous key only opens what it sealed; re-sealing needs the new one.
  if (e.SANDFLOW_SECRETS_KEY_PREVIOUS && !e.SANDFLOW_SECRETS_KEY)
    throw new Error(
      `invalid configuration: SANDFLOW_SECRETS_KEY_PREVIOUS: needs ${SECRETS_KEY_VARIABLE} too (the new key the stored secrets are encrypted again with)`,
    );
  return defaultApiConfig({
    publicUrl: e.SANDFLOW_PUBLIC_URL,
    ...(e.SANDFLOW_JWT_SECRET ? { jwtSecret: e.SANDFLOW_JWT_SECRET } : {}),
    admin: { email: e.SANDFLOW_ADMIN_EMAIL, password: e.SANDFLOW_ADMIN_PASSWORD },
    smtpUrl: e.SANDFLOW_SMTP_URL,
    mailFrom: e.SANDFLOW_MAIL_FROM,
    oidc:
      e.SANDFLOW_OIDC_ISSUER && e.SANDFLOW_OIDC_CLIENT_ID && e.SANDFLOW_OIDC_CLIENT_SECRET
        ? {
            issuer: e.SANDFLOW_OIDC_ISSUER,
            clientId: e.SANDFLOW_OIDC_CLIENT_ID,
            clientSecret: e.SANDFLOW_OIDC_CLIENT_SECRET,
          }
        : undefined,
    botCheck:
      e.SANDFLOW_BOT_CHECK_PROVIDER && e.SANDFLOW_BOT_CHECK_SECRET && e.SANDFLOW_BOT_CHECK_SITE_KEY
        ? {
            provider: e.SANDFLOW_BOT_CHECK_PROVIDER,
            secret: e.SANDFLOW_BOT_CHECK_SECRET,
            siteKey: e.SANDFLOW_BOT_CHECK_SITE_KEY,
          }
        : undefined,
    secureCookies: e.SANDFLOW_SECURE_COOKIES ?? e.SANDFLOW_PUBLIC_URL.startsWith('https:'),
    trustProxy: trustProxyOf(e.SANDFLOW_TRUST_PROXY),
    secrets: { key: e.SANDFLOW_SECRETS_KEY, previousKey: e.SANDFLOW_SECRETS_KEY_PREVIOUS },
    ...(e.SANDFLOW_UPLOAD_MAX_BYTES
      ? { builder: { ...BUILDER_DEFAULTS, uploadMaxBytes: e.SANDFLOW_UPLOAD_MAX_BYTES } }
      : {}),
  });
}

function trustProxyOf(value: string | undefined): ApiConfig['trustProxy'] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const BUILDER_DEFAULTS: ApiConfig['builder'] = { uploadMaxBytes: 1024 ** 3, terminalGraceMs: 60_000 };

/** Defaults for everything, overridable piecemeal (tests pass a few fields). */
export function defaultApiConfig(overrides: Partial<ApiConfig> = {}): ApiConfig {
  return {
    publicUrl: 'http://localhost:8080',
    jwtSecret: crypto.randomUUID() + crypto.randomUUID(),
    accessTokenSeconds: 15 * 60,
    refreshTokenSeconds: 30 * 24 * 3600,
    verificationTokenSeconds: 3 * 24 * 3600,
    resetTokenSeconds: 3600,
    invitationSeconds: 7 * 24 * 3600,
    admin: { email: undefined, password: undefined },
    smtpUrl: undefined,
    mailFrom: 'Sandflow <no-reply@sandflow.local>',
    oidc: undefined,
    botCheck: undefined,
    secureCookies: false,
    trustProxy: false,
    secrets: { key: undefined, previousKey: undefined },
    rateLimit: { windowMs: 15 * 60_000, perAccount: 10, perAddress: 50 },
    heartbeatMs: 30_000,
    builder: BUILDER_DEFAULTS,
    ...overrides,
  };
}
