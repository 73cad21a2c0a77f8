import { z } from 'zod';
import { noOrganization } from '../errors.js';
import { HANDLED, route, type RouteDefinition } from '../http/route.js';
import { zInt } from '../http/schemas.js';
import type { Services } from '../services/index.js';
import { zTimestamp } from './results.js';

const zNano = z
  .string()
  .regex(/^-?\d+$/)
  .describe('Exact amount in nano-dollars (a decimal integer).');

export const zBillingRecord = z.strictObject({
  _id: z.string(),
  amount: z.number().describe('Dollars (to the nano-dollar).'),
  amount_nano: zNano,
  execution_time: z.number().int().describe('Nanoseconds.'),
  organization: z.uuid(),
  paid: z.boolean(),
  sandbox_id: z.string(),
  sandbox_name: z.string(),
  session: z.string(),
  session_name: z.string(),
  run: z.string(),
  status: z.string(),
  timestamp: zTimestamp.describe('When the step execution ended.'),
  user_id: z.uuid().nullable(),
  group: z.uuid().nullable(),
  machine: z
    .strictObject({ cpu: z.number().int(), memory: z.number().int() })
    .describe('The priced machine size (millicores, MB): the smallest that fits, spec 2 §9.'),
});

const zSessionTotal = z.strictObject({
  session: z.string(),
  session_name: z.string(),
  records: z.number().int(),
  execution_time: z.number().describe('Nanoseconds.'),
  amount: z.number().describe('Dollars, to the cent.'),
  amount_nano: zNano,
});

const PAGE_SIZES = [10, 20, 50, 100] as const;

export function billingRoutes(services: Services): RouteDefinition[] {
  const { billing } = services;
  const scopeOf = (
    caller: { userId: string },
    organizationId: string | null,
    role: Parameters<typeof billing.page>[0]['role'],
  ) => {
    if (!organizationId) throw noOrganization();
    return { userId: caller.userId, organizationId, role };
  };
  return [
    route({
      method: 'get',
      path: '/billing',
      tag: 'billing',
      summary:
        'Billing records (one per step execution), newest first, with per-session and overall totals: ' +
        "the current organization's for administrator roles, otherwise the caller's own.",
      query: z
        .object({
          page: zInt.pipe(z.number().min(0, 'must be at least 0').max(100_000)).default(0),
          page_size: zInt
            .pipe(
              z.union(
                PAGE_SIZES.map((n) => z.literal(n)),
                { message: 'must be 10, 20, 50 or 100' },
              ),
            )
            .default(20),
        })
        .strict(),
      result: z.strictObject({
        records: z.array(zBillingRecord),
        page: z.number().int(),
        page_size: z.number().int(),
        total: z.number().int().describe('Records in all pages.'),
        sessions: z.array(zSessionTotal).describe('Per-session totals over all records, largest first.'),
        amount: z.number().describe('Dollars, to the cent.'),
        amount_nano: zNano,
      }),
      async handler({ caller, organizationId, role, query }) {
        return billing.page(scopeOf(caller!, organizationId, role), query.page, query.page_size);
      },
    }),
    route({
      method: 'get',
      path: '/billing/csv',
      tag: 'billing',
      summary: 'The records GET /billing pages, all of them, as a CSV download.',
      raw: {
        status: 200,
        contentType: 'text/csv',
        description: 'One line per billing record, with a header.',
      },
      async handler({ caller, organizationId, role, res }) {
        const csv = await billing.csv(scopeOf(caller!, organizationId, role));
        res.status(200);
        res.setHeader('content-type', 'text/csv; charset=utf-8');
        res.setHeader('content-disposition', 'attachment; filename="billing.csv"');
        res.send(csv);
        return HANDLED;
      },
    }),
  ];
}
