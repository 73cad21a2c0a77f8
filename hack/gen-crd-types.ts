// Generates crds/src/generated/types.gen.ts from crds/*.yaml. Run: npx tsx hack/gen-crd-types.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypes } from '../crds/src/codegen.js';
import { readCrdSources } from '../crds/src/crds.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'crds/src/generated/types.gen.ts');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, generateTypes(readCrdSources(join(root, 'crds'))));
console.log(`wrote ${target}`);
