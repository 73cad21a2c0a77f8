// Writes api/openapi.yaml from the mounted routes: `npx tsx api/src/openapi-generate.ts`.
// The file is formatted with the repository's Prettier settings, so `prettier --check .` passes.
import fs from 'node:fs';
import knexFactory from 'knex';
import pino from 'pino';
import { defaultApiConfig } from './config.js';
import type { RouteDefinition } from './http/route.js';
import { OPENAPI_PATH, buildOpenApi, renderOpenApi } from './openapi.js';
import { allRoutes } from './routes/index.js';
import { servicesFor } from './services/index.js';

/** Every route definition, for reading their schemas (building them touches no database: knex connects lazily). */
export function routeDefinitions(): RouteDefinition[] {
  const db = knexFactory({ client: 'pg' });
  const services = servicesFor({
    db,
    kube: null,
    logger: pino({ level: 'silent' }),
    mailer: { send: async () => {} },
    config: defaultApiConfig(),
  });
  return allRoutes(services);
}

export function generatedOpenApi(): string {
  return renderOpenApi(buildOpenApi(routeDefinitions()));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const prettier = await import('prettier');
  const options = await prettier.resolveConfig(OPENAPI_PATH);
  fs.writeFileSync(
    OPENAPI_PATH,
    await prettier.format(generatedOpenApi(), { ...options, filepath: OPENAPI_PATH }),
  );
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
