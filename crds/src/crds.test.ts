import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateTypes, type JSONSchemaProps } from './codegen.js';
import { crdSchema, loadCrds, readCrdSources } from './crds.js';

const KINDS = ['ClusterManager', 'Run', 'Sandbox', 'Session', 'Workflow'] as const;

function walk(schema: JSONSchemaProps, path: string, visit: (s: JSONSchemaProps, p: string) => void) {
  visit(schema, path);
  for (const [k, v] of Object.entries(schema.properties ?? {})) walk(v, `${path}.${k}`, visit);
  if (schema.items) walk(schema.items, `${path}[]`, visit);
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${path}{}`, visit);
}

describe('CRDs', () => {
  it('generated types have not drifted from the YAML (npx tsx hack/gen-crd-types.ts)', () => {
    const committed = readFileSync(new URL('./generated/types.gen.ts', import.meta.url), 'utf8');
    expect(generateTypes(readCrdSources())).toBe(committed);
  });

  it('ships one CRD per kind, group sandflow.io, v1alpha1, status subresource, short names, columns', () => {
    const crds = loadCrds();
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual([...KINDS]);
    for (const crd of crds) {
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.spec.group).toBe('sandflow.io');
      expect(crd.metadata.name).toBe(`${crd.spec.names.plural}.sandflow.io`);
      const [v] = crd.spec.versions;
      expect(v?.name).toBe('v1alpha1');
      expect(v?.subresources?.status).toEqual({});
      expect(crd.spec.names.shortNames?.length).toBeGreaterThan(0);
      expect(v?.additionalPrinterColumns?.length).toBeGreaterThan(2);
      expect(crd.spec.scope).toBe(crd.spec.names.kind === 'ClusterManager' ? 'Cluster' : 'Namespaced');
    }
    const runColumns = crdSchema('Run') && crds.find((c) => c.spec.names.kind === 'Run')!.spec.versions[0]!;
    expect(runColumns.additionalPrinterColumns!.map((c) => c.name)).toEqual(
      expect.arrayContaining(['Session', 'Phase', 'Started', 'Duration']),
    );
  });

  it('schemas are structural: every node typed and described, no preserve-unknown-fields', () => {
    for (const kind of KINDS) {
      walk(crdSchema(kind), kind, (s, p) => {
        expect(s.type, `${p} has a type`).toBeTypeOf('string');
        expect(s['x-kubernetes-preserve-unknown-fields'], p).toBeUndefined();
        if (!p.endsWith('.metadata')) expect(s.description, `${p} has a description`).toBeTruthy();
      });
    }
  });

  it('mirrors the spec rules and defaults', () => {
    const sb = crdSchema('Sandbox').properties!.spec!;
    const name = new RegExp(sb.properties!.name!.pattern!);
    expect(name.test('my_sandbox_1')).toBe(true);
    expect(name.test('bad#name')).toBe(false);
    const version = new RegExp(sb.properties!.version!.pattern!);
    expect(version.test('1.0.0')).toBe(true);
    expect(version.test('v' + 'a'.repeat(127))).toBe(true);
    expect(version.test('v' + 'a'.repeat(128))).toBe(false);
    expect(version.test('.1')).toBe(false);
    expect(sb.properties!.version!.default).toBe('1.0.0');
    const c = sb.properties!.constraints!.properties!;
    expect([c.cpu!.default, c.memory!.default, c.disk!.default]).toEqual([500, 512, 102]);
    expect([c.cpu!.minimum, c.memory!.minimum, c.disk!.minimum]).toEqual([1, 1, 1]);
    expect(sb.properties!.architecture!.default).toBe('amd64');
    expect(sb.properties!.visibility!.properties!.type!.enum).toEqual(['private', 'public', 'group']);
    const session = crdSchema('Session').properties!.spec!;
    expect(session.properties!.attempts!.default).toBe(1);
    expect(session.properties!.schedules!.items!.properties!.periodicLabel!.enum).toEqual([
      'minutely',
      'hourly',
      'daily',
      'weekly',
      'monthly',
      'yearly',
    ]);
    const edge = crdSchema('Workflow').properties!.spec!.properties!.edges!.items!;
    expect(edge.properties!.type!.enum).toEqual(['single', 'multi', 'switchInput', 'switchOutput', 'start']);
    expect(
      crdSchema('Run').properties!.status!.properties!.sandboxStatuses!.items!.properties!.status!.enum,
    ).toEqual(['WAITING', 'INIT', 'RUNNING', 'COMPLETED', 'ERROR', 'PAUSED', 'STOPPED', 'SKIPPING']);
  });
});
