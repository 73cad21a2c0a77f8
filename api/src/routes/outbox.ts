import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zText } from '../http/schemas.js';
import { zTimestamp } from './results.js';
import type { Services } from '../services/index.js';

/**
 * The mail outbox (mails go there when no SMTP server is configured): what the
 * platform would have sent, newest first. Super admin only — it holds verification
 * and password-reset links of everybody.
 */
export function outboxRoutes(services: Services): RouteDefinition[] {
  return [
    route({
      method: 'get',
      path: '/admin/outbox',
      tag: 'platform',
      summary:
        'Mails kept in the outbox when no SMTP server is configured, newest first (?to= filters by recipient).',
      query: z.object({
        to: zText(254).optional(),
        limit: z.coerce.number().int('must be an integer').min(1).max(200).default(50),
      }),
      result: z.array(
        z.strictObject({
          id: z.number().int(),
          to: z.string(),
          subject: z.string(),
          text: z.string(),
          created_at: zTimestamp,
        }),
      ),
      async handler({ query }) {
        return services.outbox.read(query);
      },
    }),
  ];
}
