import type { Router } from 'express';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { generatedOpenApi } from './openapi-generate.js';
import { openApiPath, readOpenApiDocument } from './openapi.js';
import { createHarness, type Harness } from './test-support/harness.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every METHOD path that Express actually serves under /api/v0. */
function mountedRoutes(app: ReturnType<typeof createApp>): string[] {
  const found: string[] = [];
  // Routes of the app itself (/metrics) sit outside /api/v0 and its document.
  const walk = (stack: Layer[], nested = false) => {
    for (const layer of stack) {
      if (layer.route && nested) {
        for (const method of Object.keys(layer.route.methods))
          found.push(`${method.toUpperCase()} ${openApiPath(layer.route.path)}`);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, true);
      }
    }
  };
  walk((app as unknown as { router: Router & { stack: Layer[] } }).router.stack);
  return found.sort();
}

function documentedRoutes(doc: Record<string, unknown>): string[] {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(() => h.close());

describe('api/openapi.yaml', () => {
  it('documents exactly the mounted routes', () => {
    const app = createApp(h.deps);
    const mounted = mountedRoutes(app);
    expect(mounted.length).toBeGreaterThan(40);
    expect(documentedRoutes(readOpenApiDocument())).toEqual(mounted);
  });

  // Generating and parsing the ~700 KB document takes seconds on a loaded machine.
  it(
    'is up to date with the route schemas (regenerate: npx tsx api/src/openapi-generate.ts)',
    { timeout: 60_000 },
    () => {
      expect(readOpenApiDocument()).toEqual(YAML.parse(generatedOpenApi()));
    },
  );

  it('is served at /api/v0/openapi.json as OpenAPI 3.1', async () => {
    const res = await h.request.get('/api/v0/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/illumina/events'].get.parameters[0]).toMatchObject({ name: 'page', in: 'query' });
  });
});
