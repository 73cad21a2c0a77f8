import { createHash, createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Knex } from 'knex';
import type { ApiConfig } from '../config.js';
import { unauthorized } from '../errors.js';

export interface SessionTokens {
  access_token: string;
  refresh_token: string;
}

export interface AccessClaims {
  userId: string;
  organizationId: string | null;
  /** When the token was signed (epoch seconds): checked against the person's last password change. */
  issuedAt?: number;
}

/** Opaque random tokens are stored only as their SHA-256, so a database leak reveals none. */
export function newOpaqueToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createTokenService(db: Knex, config: ApiConfig) {
  // Imported once: jose would import raw key bytes again on every signature check.
  const key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
  /**
   * Access tokens already verified, until they expire: the same string always verifies to
   * the same claims (they are stateless, nothing revokes them before `exp`), so repeating
   * the HMAC per request proves nothing new. Bounded; the oldest entry goes first.
   */
  const verified = new Map<string, { claims: AccessClaims; expiresAt: number }>();
  const VERIFIED_MAX = 10_000;

  async function signAccessToken(claims: AccessClaims): Promise<string> {
    return new SignJWT({ org: claims.organizationId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.userId)
      .setIssuedAt()
      .setExpirationTime(`${config.accessTokenSeconds}s`)
      .sign(key);
  }

  async function verifyAccessToken(token: string): Promise<AccessClaims | null> {
    const known = verified.get(token);
    if (known) {
      if (Date.now() < known.expiresAt) return known.claims;
      verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string') return null;
      const claims: AccessClaims = {
        userId: payload.sub,
        organizationId: typeof payload.org === 'string' ? payload.org : null,
        ...(typeof payload.iat === 'number' ? { issuedAt: payload.iat } : {}),
      };
      if (typeof payload.exp === 'number') {
        if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
        verified.set(token, { claims, expiresAt: payload.exp * 1000 });
      }
      return claims;
    } catch {
      return null;
    }
  }

  async function insertRefreshToken(claims: AccessClaims, familyId: string, trx: Knex = db): Promise<string> {
    const { token, hash } = newOpaqueToken();
    await trx('refresh_tokens').insert({
      family_id: familyId,
      user_id: claims.userId,
      organization_id: claims.organizationId,
      token_hash: hash,
      expires_at: new Date(Date.now() + config.refreshTokenSeconds * 1000),
    });
    return token;
  }

  /** A new sign-in: a new refresh-token family. */
  async function issue(claims: AccessClaims): Promise<SessionTokens> {
    return {
      access_token: await signAccessToken(claims),
      refresh_token: await insertRefreshToken(claims, randomUUID()),
    };
  }

  /**
   * Trades a refresh token for a new pair. Each refresh token works once; presenting
   * one that was already used means it was stolen (or replayed), so the whole family
   * is revoked and the legitimate holder must sign in again.
   */
  async function rotate(refreshToken: string): Promise<SessionTokens & AccessClaims> {
    const hash = hashToken(refreshToken);
    const row = await db('refresh_tokens').where({ token_hash: hash }).first();
    if (!row) throw unauthorized('Invalid refresh token');
    if (row.revoked_at || row.used_at) {
      await revokeFamily(row.family_id);
      throw unauthorized('Invalid refresh token');
    }
    if (new Date(row.expires_at).getTime() < Date.now()) throw unauthorized('Expired refresh token');
    // Marking as used with a guard makes two concurrent rotations of one token end with one winner.
    const claimed = await db('refresh_tokens')
      .where({ id: row.id })
      .whereNull('used_at')
      .update({ used_at: db.fn.now() });
    if (claimed !== 1) {
      await revokeFamily(row.family_id);
      throw unauthorized('Invalid refresh token');
    }
    const claims = { userId: row.user_id as string, organizationId: row.organization_id as string | null };
    return {
      ...claims,
      access_token: await signAccessToken(claims),
      refresh_token: await insertRefreshToken(claims, row.family_id),
    };
  }

  async function revokeFamily(familyId: string): Promise<void> {
    await db('refresh_tokens')
      .where({ family_id: familyId })
      .whereNull('revoked_at')
      .update({ revoked_at: db.fn.now() });
  }

  async function revoke(refreshToken: string): Promise<void> {
    const row = await db('refresh_tokens')
      .where({ token_hash: hashToken(refreshToken) })
      .first();
    if (row) await revokeFamily(row.family_id);
  }

  /** Ends every session of the person: refresh tokens revoked, access tokens issued so far refused. */
  async function revokeAllOfUser(userId: string): Promise<void> {
    await db('refresh_tokens')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: db.fn.now() });
    // The API's clock, not the database's: it is the clock that signs the fresh tokens (iat).
    await db('users').where({ id: userId }).update({ tokens_valid_after: new Date() });
  }

  return { signAccessToken, verifyAccessToken, issue, rotate, revoke, revokeAllOfUser };
}

export type TokenService = ReturnType<typeof createTokenService>;
