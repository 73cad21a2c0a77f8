import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED, SWAGGER, generateArgoTypes } from '../argo/generate.js';

const SHARED = new URL('../../../shared/argo/swagger.json', import.meta.url);
const shared = fs.existsSync(SHARED) ? SHARED : null;

describe('the vendored Argo API document and its generated types', () => {
  it.skipIf(!shared)('kube/argo/swagger.json is ../shared/argo/swagger.json unchanged', () => {
    expect(fs.readFileSync(SWAGGER, 'utf8')).toBe(fs.readFileSync(shared!, 'utf8'));
  });
  if (!shared) it.skip(`../shared/argo/swagger.json is absent here: the vendored copy is not compared`);

  it('kube/src/argo-api.gen.ts is what npx tsx kube/argo/generate.ts writes', async () => {
    expect(fs.readFileSync(GENERATED, 'utf8')).toBe(await generateArgoTypes());
  }, 60_000);
});
