import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zBool, zInt, zText } from '../http/schemas.js';
import { BOT_CHECK_PROVIDERS } from '../config.js';
import { zTimestamp } from './results.js';
import type { Services } from '../services/index.js';
import { productLicense } from '../services/license.js';

const licenseResult = z.object({
  id: z.string().describe('SPDX identifier (the license field of package.json).'),
  name: z.string().describe('Name, from the heading of the LICENSE file.'),
  url: z.string().describe('The SPDX page of the license.'),
  product: z.string(),
  version: z.string().describe('Product version (the root package.json).'),
  text: z.string().nullable().describe('Full text of the LICENSE file.'),
});

const publicPreferences = z.object({
  allow_new_organization: z.boolean(),
  bot_check: z
    .object({
      provider: z.enum(BOT_CHECK_PROVIDERS),
      site_key: z.string().describe('Public key the sign-up page draws the widget with.'),
    })
    .nullable()
    .describe('The bot-check widget registration needs (POST /user re_captcha_token); null when off.'),
});

const eventResult = z.strictObject({
  id: z.number().int(),
  timestamp: zTimestamp,
  organization_name: z.string().describe("'' for platform-wide events."),
  kind: z.string(),
  action: z.string(),
  subject: z.string(),
  data: z.array(z.unknown()),
  user_name: z.string(),
});

const configurationResult = z.strictObject({
  allow_new_organization: z.boolean(),
  disable_provisioning: z.boolean(),
  registry: z.strictObject({
    url: z.string(),
    username: z.string(),
    password: z.string().describe("'********' when one is set: it is write-only."),
  }),
});

export function illuminaRoutes(services: Services): RouteDefinition[] {
  const { preferences, events, config, organizations, platformRegistry } = services;
  return [
    route({
      method: 'get',
      path: '/illumina/preferences',
      tag: 'platform',
      summary: 'Public platform preferences for the sign-up page.',
      result: publicPreferences,
      async handler(): Promise<z.output<typeof publicPreferences>> {
        // The site key only: the secret never leaves the server.
        const bot = config.botCheck;
        return {
          allow_new_organization: await preferences.get('allow_new_organization'),
          bot_check: bot ? { provider: bot.provider, site_key: bot.siteKey } : null,
        };
      },
    }),
    route({
      method: 'get',
      path: '/illumina/license',
      tag: 'platform',
      summary: 'The product license: SPDX id and name, product version and the license text.',
      result: licenseResult,
      async handler() {
        return productLicense();
      },
    }),
    route({
      method: 'get',
      path: '/illumina/events',
      tag: 'platform',
      summary:
        'Audit events, newest first, 30 per page (pages start at 0), scoped to what the caller may see.',
      query: z.object({ page: zInt.pipe(z.number().min(0, 'must be at least 0').max(100_000)).default(0) }),
      result: z.array(eventResult),
      async handler({ caller, query }) {
        return events.page(caller!, query.page);
      },
    }),
    route({
      method: 'get',
      path: '/illumina/configuration',
      tag: 'platform',
      summary: 'Global preferences (super admin).',
      result: configurationResult,
      async handler() {
        const all = await preferences.all();
        return { ...all, registry: { ...all.registry, password: all.registry.password ? '********' : '' } };
      },
    }),
    route({
      method: 'post',
      path: '/illumina/configuration',
      tag: 'platform',
      summary: 'Set global preferences (super admin).',
      body: z.object({
        allow_new_organization: zBool.optional(),
        disable_provisioning: zBool.optional(),
        registry: z
          .object({ url: zText(500), username: zText(200), password: zText(500, { trim: false }) })
          .partial()
          .strict()
          .optional(),
      }),
      result: configurationResult,
      async handler({ body, caller }) {
        const current = await preferences.all();
        const saved = await preferences.set({
          allow_new_organization: body.allow_new_organization,
          disable_provisioning: body.disable_provisioning,
          registry: body.registry ? { ...current.registry, ...body.registry } : undefined,
        });
        // Admission reads each organization's provisioner from its namespace: off for all, or back.
        if (
          body.disable_provisioning !== undefined &&
          body.disable_provisioning !== current.disable_provisioning
        )
          await organizations.syncProvisioning();
        if (body.registry) await platformRegistry.sync();
        await events.record(caller!, {
          kind: 'organizations',
          action: 'update',
          subject: 'configuration',
          organizationId: null,
        });
        return {
          ...saved,
          registry: { ...saved.registry, password: saved.registry.password ? '********' : '' },
        };
      },
    }),
  ];
}
