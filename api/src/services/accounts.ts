import type { Knex } from 'knex';
import { readCachesFor } from './read-caches.js';
import { transaction } from './transaction.js';
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import type { ApiConfig } from '../config.js';
import type { Caller } from './callers.js';
import { currentRole } from './callers.js';
import { badRequest, conflict, forbidden, notFound, unauthorized, unprocessable } from '../errors.js';
import type { EventService } from './events.js';
import type { Mailer } from './mailer.js';
import type { MemberService } from './members.js';
import type { OrganizationService } from './organizations.js';
import { hashPassword, isStrongPassword, verifyPassword } from './passwords.js';
import type { PreferenceService } from './preferences.js';
import type { Row } from './tenancy-shared.js';
import { hashToken, newOpaqueToken, type TokenService } from './tokens.js';

export interface Registration {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  use_invitation: boolean;
  organization?: string | undefined;
  invitation_link?: string | undefined;
}

interface Deps {
  db: Knex;
  config: ApiConfig;
  logger: Logger;
  mailer: Mailer;
  tokens: TokenService;
  events: EventService;
  members: MemberService;
  organizations: OrganizationService;
  preferences: PreferenceService;
}

export const INVALID_CREDENTIAL = 'Invalid credential';

export function createAccountService(deps: Deps) {
  const { db, config, mailer, tokens, events, members, organizations, preferences } = deps;
  const caches = readCachesFor(db);

  async function findByEmail(email: string) {
    return db('users').whereRaw('lower(email) = lower(?)', [email]).first();
  }

  async function mailToken(user: { id: string; email: string }, purpose: 'verify' | 'reset') {
    const { token, hash } = newOpaqueToken();
    const seconds = purpose === 'verify' ? config.verificationTokenSeconds : config.resetTokenSeconds;
    await db('user_tokens').insert({
      token_hash: hash,
      user_id: user.id,
      purpose,
      expires_at: new Date(Date.now() + seconds * 1000),
    });
    const link = `${config.publicUrl}/${purpose === 'verify' ? 'verification' : 'password'}/${token}`;
    const subject = purpose === 'verify' ? 'Confirm your e-mail' : 'Reset your password';
    await mailer.send({ to: user.email, subject, text: `${subject}: ${link}\n` });
  }

  /** Marks a one-use token used and returns its user id, or null when unknown, used or expired. */
  async function consumeToken(
    token: string,
    purpose: 'verify' | 'reset',
    trx: Knex = db,
  ): Promise<string | null> {
    const [row] = await trx('user_tokens')
      .where({ token_hash: hashToken(token), purpose })
      .whereNull('used_at')
      .where('expires_at', '>', new Date())
      .update({ used_at: trx.fn.now() })
      .returning('user_id');
    return row?.user_id ?? null;
  }

  function assertStrong(password: string, field: string) {
    if (!isStrongPassword(password)) throw unprocessable(`${field}: Password too weak`, 'weak_password');
  }

  return {
    findByEmail,

    /** POST /user: a new account joining by invitation or founding a new organization; mails a verification link. */
    async register(input: Registration) {
      assertStrong(input.password, 'password');
      if (await findByEmail(input.email)) throw conflict('email: already registered');
      let invitation: Awaited<ReturnType<MemberService['findInvitation']>> = null;
      if (input.use_invitation) {
        invitation = input.invitation_link ? await members.findInvitation(input.invitation_link) : null;
        if (!invitation) throw unprocessable('invitation_link: unknown or expired invitation');
        if (invitation.email.toLowerCase() !== input.email.toLowerCase())
          throw unprocessable('email: the invitation is for another e-mail');
      } else {
        if (!input.organization) throw unprocessable('organization: Required');
        if (!(await preferences.get('allow_new_organization')))
          throw forbidden('organization: new organizations are not allowed');
      }
      const passwordHash = await hashPassword(input.password);
      const user = await transaction(db, async (trx) => {
        const [user] = await trx('users')
          .insert({
            email: input.email,
            first_name: input.first_name,
            last_name: input.last_name,
            password_hash: passwordHash,
          })
          .returning('*');
        const actor = {
          userId: user.id,
          email: user.email,
          name: `${user.first_name} ${user.last_name}`.trim(),
        };
        if (invitation && input.invitation_link) {
          const organizationId = await members.acceptInvitation(actor, input.invitation_link, trx);
          await trx('users').where({ id: user.id }).update({ current_organization_id: organizationId });
        } else {
          const org = await organizations.create(actor, { name: input.organization! }, trx);
          await trx('users').where({ id: user.id }).update({ current_organization_id: org.id });
        }
        await events.record(
          actor,
          { kind: 'users', action: 'create', subject: user.email, organizationId: null },
          trx,
        );
        return user;
      });
      await mailToken(user, 'verify');
      return true;
    },

    async verify(token: string) {
      const userId = await consumeToken(token, 'verify');
      if (!userId) throw badRequest('Verification fail', 'verification_failed');
      await db('users').where({ id: userId }).update({ verified: true });
      caches.wrote(db, 'users');
      return true;
    },

    /** POST /login. Every failure is the same 'Invalid credential' (spec 1 §2.3). */
    async login(username: string, password: string, invitation?: string) {
      const user = await findByEmail(username);
      const ok = await verifyPassword(user?.password_hash, password);
      if (!user || !ok) throw unauthorized(INVALID_CREDENTIAL, 'invalid_credential');
      if (!user.verified) throw forbidden('E-mail not verified', 'not_verified');
      const name = `${user.first_name} ${user.last_name}`.trim();
      let organizationId: string | null = user.current_organization_id;
      if (invitation)
        organizationId = await members.acceptInvitation(
          { userId: user.id, email: user.email, name },
          invitation,
        );
      return signIn(user.id, organizationId);
    },

    signIn,

    /** POST /password: always 200 so the answer does not tell whether the e-mail is known. */
    async forgotPassword(username: string) {
      const user = await findByEmail(username);
      if (user) await mailToken(user, 'reset');
    },

    async resetPassword(token: string, password: string) {
      assertStrong(password, 'password');
      const passwordHash = await hashPassword(password);
      const userId = await consumeToken(token, 'reset');
      if (!userId) throw badRequest('token: unknown, used or expired', 'invalid_token');
      // Whoever asked for the reset also proved ownership of the e-mail.
      await db('users').where({ id: userId }).update({ password_hash: passwordHash, verified: true });
      await tokens.revokeAllOfUser(userId);
      caches.wrote(db, 'users'); // after: the revocation instant is part of the cached person
    },

    async changePassword(caller: Caller, oldPassword: string, newPassword: string) {
      const user = await db('users').where({ id: caller.userId }).first('password_hash');
      if (!(await verifyPassword(user?.password_hash, oldPassword)))
        throw badRequest(`old_password: ${INVALID_CREDENTIAL}`, 'invalid_credential');
      assertStrong(newPassword, 'new_password');
      await db('users')
        .where({ id: caller.userId })
        .update({ password_hash: await hashPassword(newPassword) });
      await tokens.revokeAllOfUser(caller.userId);
      caches.wrote(db, 'users'); // after: the revocation instant is part of the cached person
      await events.record(caller, {
        kind: 'users',
        action: 'update',
        subject: caller.email,
        organizationId: caller.currentOrganizationId,
        data: [{ password: true }],
      });
      // Every other session ends; the one that changed the password goes on with fresh tokens.
      return tokens.issue({ userId: caller.userId, organizationId: caller.currentOrganizationId });
    },

    /** GET /me (spec 1 §3 session user), in one statement: it is the console's most frequent call. */
    async me(caller: Caller) {
      // Cached briefly; any write to the tables read here empties the cache (caller-cache.ts).
      const user = (await caches.me.get(`${caller.userId}:${caller.currentOrganizationId ?? ''}`, () =>
        meRow(caller.userId, caller.currentOrganizationId),
      )) as Row;
      const json = <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T;
      const groups = json<Row[]>(user.groups);
      const choices = json<Row[]>(user.organizations).map((o) => ({
        id: o.id as string,
        name: o.name as string,
        role: caller.isSuperAdmin ? 'admin' : o.role,
      }));
      // The super admin may work in an organization they are not a member of: it is still theirs to
      // see by name in the switcher (else the top bar says 'No organization' while the API uses it).
      const current = caller.currentOrganizationId;
      if (caller.isSuperAdmin && current && !choices.some((o) => o.id === current)) {
        const row = await db('organizations').where({ id: current }).first('id', 'name');
        if (row) choices.push({ id: row.id, name: row.name, role: 'admin' });
      }
      return {
        id: user.id,
        username: user.email,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        role: currentRole(caller),
        uid: user.uid ?? 1000,
        groups: groups.map((g) => ({ id: g.id, name: g.name })),
        organizations: choices,
        current_organization: caller.currentOrganizationId,
        preferences: { mail_notification: user.mail_notification },
        quota: groups.map((g) => ({
          group: g.id,
          cpu: Number(g.cpu),
          memory: Number(g.memory),
          disk: Number(g.disk),
          use_free: g.use_free,
          use_percentage: g.use_percentage,
        })),
        tags: json<{ label: string; color: string }[]>(user.tags),
        contacts: json<{ name?: string; email?: string; phone?: string }[]>(user.contacts),
        has_avatar: user.has_avatar,
      };
    },

    /** POST /preferences/organization: switching re-issues tokens carrying the new current organization. */
    async switchOrganization(caller: Caller, name: string) {
      const org = await db('organizations').whereRaw('lower(name) = lower(?)', [name]).first('id');
      if (!org || !(caller.isSuperAdmin || caller.memberships.has(org.id))) throw notFound('Organization');
      return signIn(caller.userId, org.id);
    },

    async setPreferences(caller: Caller, preferences: { mail_notification?: boolean | undefined }) {
      if (preferences.mail_notification !== undefined) {
        await db('users')
          .where({ id: caller.userId })
          .update({ mail_notification: preferences.mail_notification });
        caches.wrote(db, 'users');
      }
    },

    /** First start: the super admin, from the environment or with a generated password printed once. */
    async ensureSuperAdmin(print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {
      if (await db('users').first('id')) return null;
      const email = config.admin.email ?? 'admin@sandflow.local';
      const generated = config.admin.password ? undefined : randomBytes(12).toString('base64url') + 'A1!';
      const password = config.admin.password ?? generated!;
      await db('users').insert({
        email,
        first_name: 'Super',
        last_name: 'Admin',
        password_hash: await hashPassword(password),
        is_super_admin: true,
        verified: true,
      });
      caches.wrote(db, 'users');
      if (generated)
        print(
          `Sandflow super admin created: ${email} / ${generated} (shown once; change it after signing in)`,
        );
      return { email, generatedPassword: generated };
    },

    /** Single sign-on: finds the person by OIDC subject or e-mail, creating a verified account when new. */
    async signInWithOidc(claims: {
      sub: string;
      email?: string | undefined;
      given_name?: string | undefined;
      family_name?: string | undefined;
      email_verified: boolean;
    }) {
      let user = await db('users').where({ oidc_subject: claims.sub }).first();
      // An existing account is linked only on an address the provider vouches for.
      if (!user && claims.email && claims.email_verified) {
        user = await findByEmail(claims.email);
        if (user) {
          await db('users').where({ id: user.id }).update({ oidc_subject: claims.sub, verified: true });
          caches.wrote(db, 'users');
        }
      }
      if (!user) {
        if (!claims.email) throw unauthorized('the identity provider gave no e-mail');
        [user] = await db('users')
          .insert({
            email: claims.email,
            first_name: claims.given_name ?? '',
            last_name: claims.family_name ?? '',
            oidc_subject: claims.sub,
            verified: true,
          })
          .returning('*');
        caches.wrote(db, 'users');
        await events.record(
          { userId: user.id, name: claims.email },
          {
            kind: 'users',
            action: 'create',
            subject: claims.email,
            organizationId: null,
            data: [{ oidc: true }],
          },
        );
      }
      return signIn(user.id, user.current_organization_id);
    },
  };

  /** The rows behind GET /me, in one statement: it is the console's most frequent call. */
  async function meRow(userId: string, organizationId: string | null): Promise<Row | null> {
    const { rows } = await db.raw(
      `SELECT u.id, u.email, u.first_name, u.last_name, u.mail_notification, u.avatar IS NOT NULL AS has_avatar,
         (SELECT m.uid FROM organization_members m WHERE m.user_id = u.id AND m.organization_id = :org) AS uid,
         COALESCE((SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'role', m.role) ORDER BY o.name)
                   FROM organization_members m JOIN organizations o ON o.id = m.organization_id
                   WHERE m.user_id = u.id), '[]') AS organizations,
         COALESCE((SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'cpu', gm.quota_cpu, 'memory', gm.quota_memory,
                     'disk', gm.quota_disk, 'use_free', gm.use_free, 'use_percentage', gm.use_percentage) ORDER BY g.name)
                   FROM group_members gm JOIN groups g ON g.id = gm.group_id
                   WHERE gm.user_id = u.id AND g.organization_id = :org), '[]') AS groups,
         COALESCE((SELECT json_agg(json_build_object('label', t.label, 'color', t.color) ORDER BY t.id)
                   FROM tags t WHERE t.user_id = u.id), '[]') AS tags,
         COALESCE((SELECT c.contacts FROM contacts c WHERE c.user_id = u.id), '[]') AS contacts
       FROM users u WHERE u.id = :user`,
      { user: userId, org: organizationId },
    );
    return rows[0] ?? null;
  }

  /** Tokens for a session; remembers the organization as the current one for the next sign-in. */
  async function signIn(userId: string, organizationId: string | null) {
    let orgId = organizationId;
    if (!orgId) {
      const first = await db('organization_members').where({ user_id: userId }).first('organization_id');
      orgId = first?.organization_id ?? null;
    }
    await db('users').where({ id: userId }).update({ current_organization_id: orgId });
    caches.wrote(db, 'users');
    return tokens.issue({ userId, organizationId: orgId });
  }
}

export type AccountService = ReturnType<typeof createAccountService>;
