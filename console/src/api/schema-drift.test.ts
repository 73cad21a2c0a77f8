// @vitest-environment node
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

it('the generated client types match api/openapi.yaml (npm run generate:client -w console)', async () => {
  const document = new URL(`file://${path.resolve(here, '../../../api/openapi.yaml')}`);
  const generated = astToString(await openapiTS(document));
  const committed = fs.readFileSync(path.join(here, 'schema.gen.ts'), 'utf8');
  // The CLI adds a banner above the types; compare from the first declaration on.
  const body = (text: string) => text.slice(text.indexOf('export interface paths'));
  expect(body(committed)).toBe(body(generated));
});
