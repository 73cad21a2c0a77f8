// Writes api/openapi.yaml from the mounted routes: `npx tsx api/src/openapi-generate.ts`.
import fs from 'node:fs';
import knexFactory from 'knex';
import pino from 'pino';
import { defaultApiConfig } from './config.js';
import { OPENAPI_PATH, buildOpenApi, renderOpenApi } from './openapi.js';
import { allRoutes } from './routes/index.js';
import { servicesFor } from './services/index.js';

export function generatedOpenApi(): string {
  // Building the routes touches no database: knex connects lazily.
  const db = knexFactory({ client: 'pg' });
  const services = servicesFor({
    db,
    kube: null,
    logger: pino({ level: 'silent' }),
    mailer: { send: async () => {} },
    config: defaultApiConfig(),
  });
  return renderOpenApi(buildOpenApi(allRoutes(services)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.writeFileSync(OPENAPI_PATH, generatedOpenApi());
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
