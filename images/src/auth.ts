import { ImageError } from './errors.js';
import type { Credentials } from './credentials.js';

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses `WWW-Authenticate` (`Bearer realm="…",service="…",scope="…"` or `Basic realm="…"`). */
export function parseChallenge(header: string): Challenge | undefined {
  const match = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?\s*/gy;
  const rest = match[2] ?? '';
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest)) !== null && m[0] !== '') {
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  return { scheme: match[1]!.toLowerCase(), params };
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * Answers challenges for one registry host: basic from the credentials, bearer by asking the
 * token service the challenge names. Tokens are kept per scope until they expire.
 */
export class RegistryAuth {
  private readonly tokens = new Map<string, CachedToken>();
  private basic = false;

  constructor(
    readonly host: string,
    private readonly credentials: Credentials | undefined,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly timeoutMs = 30_000,
  ) {}

  /** The Authorization header to send before any challenge, when one is known for the scope. */
  header(scope: string): string | undefined {
    if (this.basic && this.credentials) return basicHeader(this.credentials);
    const cached = this.tokens.get(scope);
    if (cached && cached.expiresAt > Date.now()) return `Bearer ${cached.token}`;
    return undefined;
  }

  /** Answers a 401's challenge; the header to retry with, or undefined when there is nothing to answer with. */
  async answer(wwwAuthenticate: string | null, scope: string, subject: string): Promise<string | undefined> {
    const challenge = wwwAuthenticate ? parseChallenge(wwwAuthenticate) : undefined;
    if (!challenge) return this.credentials ? basicHeader(this.credentials) : undefined;
    if (challenge.scheme === 'basic') {
      if (!this.credentials) return undefined;
      this.basic = true;
      return basicHeader(this.credentials);
    }
    if (challenge.scheme !== 'bearer' || !challenge.params.realm) {
      throw new ImageError(
        'UNAUTHORIZED',
        `${subject}: ${this.host} asks for ${challenge.scheme} authentication, which is not supported`,
      );
    }
    // The challenge names what this request needs; ours may add more (a mount's source repository).
    const wanted = [
      ...new Set([...(challenge.params.scope ?? '').split(' '), ...scope.split(' ')].filter(Boolean)),
    ].join(' ');
    const token = await this.fetchToken(challenge.params.realm, challenge.params.service, wanted, subject);
    this.tokens.set(scope, token);
    if (wanted !== scope) this.tokens.set(wanted, token);
    return `Bearer ${token.token}`;
  }

  forget(scope: string): void {
    this.tokens.delete(scope);
  }

  private async fetchToken(
    realm: string,
    service: string | undefined,
    scope: string,
    subject: string,
  ): Promise<CachedToken> {
    const url = new URL(realm);
    if (service) url.searchParams.set('service', service);
    for (const s of scope.split(' ').filter(Boolean)) url.searchParams.append('scope', s);
    const headers: Record<string, string> = {};
    if (this.credentials) headers.authorization = basicHeader(this.credentials);
    let response: Response;
    try {
      response = await this.fetchImpl(url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new ImageError('UNREACHABLE', `${subject}: the token service ${url.origin} cannot be reached`, {
        cause: error,
      });
    }
    if (response.status === 401 || response.status === 403) {
      throw new ImageError(
        'UNAUTHORIZED',
        `${subject}: the token service of ${this.host} refused the credentials (HTTP ${response.status})`,
      );
    }
    if (!response.ok) {
      throw new ImageError(
        'REGISTRY_ERROR',
        `${subject}: the token service of ${this.host} answered HTTP ${response.status}`,
      );
    }
    const body = (await response.json()) as { token?: string; access_token?: string; expires_in?: number };
    const token = body.token ?? body.access_token;
    if (!token)
      throw new ImageError('REGISTRY_ERROR', `${subject}: the token service of ${this.host} sent no token`);
    // Docker's token spec: 60 s when expires_in is absent; renew a little early.
    const lifetime = Math.max(10, body.expires_in ?? 60) * 1000;
    return { token, expiresAt: Date.now() + lifetime - 5_000 };
  }
}

function basicHeader(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}
