import type { ApiConfig } from '../config.js';
import { unprocessable } from '../errors.js';

const VERIFY_URLS = {
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

/**
 * Registration's bot check. Off unless a provider and a secret are configured; the
 * three supported providers share one siteverify protocol.
 */
export async function checkBot(
  config: ApiConfig,
  token: string | undefined,
  ip: string | undefined,
): Promise<void> {
  if (!config.botCheck) return;
  const fail = unprocessable('re_captcha_token: bot check failed', 'bot_check_failed');
  if (!token) throw fail;
  const form = new URLSearchParams({
    secret: config.botCheck.secret,
    response: token,
    ...(ip ? { remoteip: ip } : {}),
  });
  const answer = await fetch(VERIFY_URLS[config.botCheck.provider], { method: 'POST', body: form }).catch(
    () => null,
  );
  const verdict = (await answer?.json().catch(() => null)) as { success?: boolean } | null;
  if (!verdict?.success) throw fail;
}
