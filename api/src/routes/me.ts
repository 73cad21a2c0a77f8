import { z } from 'zod';
import { setSessionCookies } from '../http/cookies.js';
import { HANDLED, route, type RouteDefinition } from '../http/route.js';
import { zBool, zName, zText } from '../http/schemas.js';
import {
  zDone,
  zIdName,
  zMemberQuota,
  zOrganizationResult,
  zRole,
  zSessionResult,
  zTimestamp,
} from './results.js';
import type { Services } from '../services/index.js';

const userParams = z.object({ user: z.uuid('must be a uuid') }).strict();
const color = zText(7).regex(/^#[0-9a-fA-F]{6}$/, 'Enter a valid color');

const tagResult = z.strictObject({ label: z.string(), color: z.string() });
const contactResult = z.strictObject({
  name: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
});

const meResult = z.strictObject({
  id: z.uuid(),
  username: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: zRole.nullable().describe('In the current organization; admin for the super admin.'),
  uid: z.number().int(),
  groups: z.array(zIdName).describe('In the current organization.'),
  organizations: z.array(z.strictObject({ id: z.uuid(), name: z.string(), role: zRole })),
  current_organization: z.uuid().nullable(),
  preferences: z.strictObject({ mail_notification: z.boolean() }),
  quota: z.array(zMemberQuota),
  tags: z.array(tagResult),
  contacts: z.array(contactResult),
  has_avatar: z.boolean(),
});

const notificationResult = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  type: z.string().describe('A colour name: primary, success, warning, danger.'),
  text: z.string(),
  timestamp: zTimestamp,
  link: z.string().nullable().describe('The run it is about, when there is one.'),
  message_data: z
    .strictObject({ action: z.string(), uuid: z.string().optional(), run_uuid: z.string().optional() })
    .nullable(),
});

export function meRoutes(services: Services): RouteDefinition[] {
  const { accounts, organizations, groups, notifications, config, profile } = services;
  return [
    route({
      method: 'get',
      path: '/me',
      tag: 'me',
      summary:
        'The signed-in person: organizations, role, groups, uid, preferences. ?invite= accepts an invitation first.',
      query: z.object({ invite: zText(200).optional() }),
      result: meResult,
      async handler({ caller, query }) {
        if (query.invite)
          await services.members.acceptInvitation(caller!, query.invite).catch(() => undefined);
        return accounts.me(caller!);
      },
    }),
    route({
      method: 'get',
      path: '/organization',
      tag: 'me',
      summary: 'The current organization.',
      result: zOrganizationResult.nullable(),
      async handler({ caller, role }) {
        if (!caller!.currentOrganizationId) return null;
        return organizations.view(await organizations.get(caller!.currentOrganizationId), role ?? undefined);
      },
    }),
    route({
      method: 'get',
      path: '/group/name',
      tag: 'me',
      summary: "Id and name of the caller's groups in the current organization.",
      result: z.array(zIdName),
      async handler({ caller }) {
        return groups.namesOf(caller!);
      },
    }),
    route({
      method: 'post',
      path: '/preferences/organization',
      tag: 'me',
      summary: 'Switch the current organization; answers fresh tokens.',
      body: z.object({ name: zName }),
      result: zSessionResult,
      async handler({ caller, body, res }) {
        const session = await accounts.switchOrganization(caller!, body.name);
        setSessionCookies(res, session, config);
        return session;
      },
    }),
    route({
      method: 'put',
      path: '/preferences/user',
      tag: 'me',
      summary: 'Personal preferences (mail_notification).',
      body: z.object({ preferences: z.object({ mail_notification: zBool.optional() }).strict() }),
      result: zDone,
      async handler({ caller, body }) {
        await accounts.setPreferences(caller!, body.preferences);
        await profile.recordOwnChange(caller!, 'preferences');
        return true;
      },
    }),
    route({
      method: 'get',
      path: '/notifications/new',
      tag: 'me',
      summary: 'Unseen notifications of the current organization, newest first; they are marked seen.',
      result: z.array(notificationResult),
      async handler({ caller }) {
        return notifications.takeNew(caller!.userId, caller!.currentOrganizationId);
      },
    }),
    route({
      method: 'get',
      path: '/tags',
      tag: 'me',
      summary: "The caller's tags.",
      result: z.array(tagResult),
      async handler({ caller }) {
        return profile.tags(caller!.userId);
      },
    }),
    route({
      method: 'put',
      path: '/tags',
      tag: 'me',
      summary: 'Add a tag; colour and label must be unused by the other tags.',
      body: z.object({ color, label: zText(50, { min: 1, minMessage: 'Enter a valid tag label' }) }),
      result: tagResult,
      async handler({ caller, body }) {
        return profile.addTag(caller!, body.label, body.color);
      },
    }),
    route({
      method: 'get',
      path: '/contact',
      tag: 'me',
      summary: "The caller's contacts.",
      result: z.array(contactResult),
      async handler({ caller }) {
        return profile.contacts(caller!.userId);
      },
    }),
    route({
      method: 'put',
      path: '/contact',
      tag: 'me',
      summary: "Replace the caller's contacts.",
      body: z.object({
        contacts: z
          .array(
            z
              .object({
                name: zText(100).optional(),
                email: zText(254).optional(),
                phone: zText(50).optional(),
              })
              .strict(),
          )
          .max(100),
      }),
      result: zDone,
      async handler({ caller, body }) {
        await profile.setContacts(caller!, body.contacts);
        return true;
      },
    }),
    route({
      method: 'get',
      path: '/user/:user/avatar',
      tag: 'me',
      summary: 'The avatar image of a person sharing the organization; 404 when none.',
      params: userParams,
      raw: { status: 200, contentType: 'image/*', description: 'The image (png or jpeg).' },
      async handler({ params, res }) {
        const avatar = await profile.avatar(params.user);
        res.type(avatar.type).send(avatar.bytes);
        return HANDLED;
      },
    }),
    route({
      method: 'put',
      path: '/user/:user/avatar',
      tag: 'me',
      summary:
        'Upload an avatar: raw image/png or image/jpeg, or JSON {file_body: base64}; the content is sniffed.',
      params: userParams,
      bodyLimit: '1mb',
      rawTypes: ['image/*', 'application/octet-stream'],
      body: z.object({
        file_name: zText(255).optional(),
        file_body: zText(1_000_000, { min: 1, minMessage: 'Required' }),
      }),
      result: z.strictObject({
        type: z.string().describe('The sniffed media type.'),
        size: z.number().int(),
      }),
      async handler({ params, body, caller }) {
        const bytes = Buffer.isBuffer(body)
          ? body
          : Buffer.from((body as { file_body: string }).file_body.replace(/^data:[^,]*,/, ''), 'base64');
        return profile.setAvatar(caller!, params.user, bytes);
      },
    }),
    route({
      method: 'post',
      path: '/feedback',
      tag: 'me',
      summary: 'Send feedback.',
      body: z.object({
        subject: zText(200, { min: 1, minMessage: 'Required' }),
        content: zText(10_000, { min: 1, minMessage: 'Required' }),
      }),
      result: zDone,
      async handler({ caller, body }) {
        await profile.sendFeedback(caller!, body.subject, body.content);
        return true;
      },
    }),
  ];
}
