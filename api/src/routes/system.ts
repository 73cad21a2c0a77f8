import { HANDLED as HANDLED_MARK, route, type RouteDefinition } from '../http/route.js';
import { readOpenApiDocument } from '../openapi.js';
import { z } from 'zod';
import type { Services } from '../services/index.js';

export function systemRoutes(services: Services): RouteDefinition[] {
  let document: Record<string, unknown> | undefined;
  return [
    route({
      method: 'get',
      path: '/healthz',
      tag: 'system',
      summary: 'Liveness and database reachability.',
      result: z.strictObject({ ok: z.literal(true) }),
      async handler() {
        await services.ping();
        return { ok: true as const };
      },
    }),
    route({
      method: 'get',
      path: '/openapi.json',
      tag: 'system',
      summary: 'This OpenAPI 3.1 document.',
      raw: { status: 200, contentType: 'application/json', description: 'This OpenAPI 3.1 document.' },
      async handler({ res }) {
        document ??= readOpenApiDocument();
        res.json(document);
        return HANDLED_MARK;
      },
    }),
  ];
}
