// x-kubernetes-validations (CEL) on a CRD: the same 422 Status from kube-lite and kube-apiserver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  freshNamespace,
  kubeConfig,
  type RawResponse,
  rawRequest,
  uniqueName,
} from '../support/kube.js';

const kc = kubeConfig();
const group = 'cel.contract.sandflow.io';
const plural = 'gizmos';
const crdName = `${plural}.${group}`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
let namespace: string;

const rule = (r: Record<string, unknown>) => r;

/** A CRD with one rule of each kind: object, list, field, fieldPath, messageExpression, reason, oldSelf. */
function gizmoCrd(
  name = crdName,
  specRules = [] as Record<string, unknown>[],
  ownerRules = [] as Record<string, unknown>[],
) {
  const [plural_, ...groupParts] = name.split('.');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: groupParts.join('.'),
      scope: 'Namespaced',
      names: { plural: plural_, singular: plural_!.slice(0, -1), kind: 'Gizmo' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': [
                    rule({
                      rule: 'self.minReplicas <= self.maxReplicas',
                      message: 'minReplicas must not exceed maxReplicas',
                      fieldPath: '.minReplicas',
                    }),
                    rule({
                      rule: '!has(self.forbidden)',
                      messageExpression: "'forbidden may not be set, got ' + self.forbidden",
                      reason: 'FieldValueForbidden',
                    }),
                    rule({
                      rule: '!has(self.tags) || has(self.owner)',
                      message: 'owner is required with tags',
                      reason: 'FieldValueRequired',
                      fieldPath: '.owner',
                    }),
                    ...specRules,
                  ],
                  properties: {
                    minReplicas: { type: 'integer' },
                    maxReplicas: { type: 'integer' },
                    forbidden: { type: 'string' },
                    owner: {
                      type: 'string',
                      ...(ownerRules.length ? { 'x-kubernetes-validations': ownerRules } : {}),
                    },
                    mode: {
                      type: 'string',
                      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }],
                    },
                    memory: {
                      type: 'string',
                      maxLength: 10,
                      'x-kubernetes-validations': [
                        {
                          rule: "self.matches('^[0-9]+[KMG]i$') && self.find('[0-9]+').size() <= 4",
                          message: 'memory must be a binary quantity of at most 4 digits',
                        },
                      ],
                    },
                    // Bounded sizes keep the rules under kube-apiserver's static cost estimate.
                    tags: {
                      type: 'array',
                      maxItems: 10,
                      items: { type: 'string', maxLength: 20 },
                      'x-kubernetes-validations': [
                        { rule: 'self.all(t, t.lowerAscii() == t)', message: 'tags must be lower case' },
                        { rule: "self.filter(t, t.startsWith('x-')).size() <= 1" },
                      ],
                    },
                  },
                },
                status: {
                  type: 'object',
                  'x-kubernetes-validations': [
                    { rule: 'self.ready <= self.total', message: 'ready cannot exceed total' },
                  ],
                  properties: { ready: { type: 'integer' }, total: { type: 'integer' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

const base = `/apis/${group}/v1/namespaces`;
const gizmo = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${group}/v1`,
  kind: 'Gizmo',
  metadata: { name },
  spec,
});
const send = (method: string, path: string, body: unknown) =>
  rawRequest(kc, method, path, JSON.stringify(body), { 'Content-Type': 'application/json' });
type Named = { metadata: { name: string } } & Record<string, unknown>;
const create = (body: Named) => send('POST', `${base}/${namespace}/${plural}`, body);
const replace = (body: Named, sub = '') =>
  send('PUT', `${base}/${namespace}/${plural}/${body.metadata.name}${sub}`, body);

interface Cause {
  reason: string;
  field?: string;
  message: string;
}

/** The 422's causes, sorted by field: kube-apiserver walks object fields in Go's map order. */
function causesOf(res: RawResponse): Cause[] {
  expect(res.status, res.text).toBe(422);
  const status = res.json() as { reason: string; details: { causes: Cause[] } };
  expect(status.reason).toBe('Invalid');
  return [...status.details.causes].sort((a, b) => (a.field ?? '').localeCompare(b.field ?? ''));
}

const ok = (res: RawResponse) => {
  expect(res.status, res.text).toBeLessThan(300);
  return res.json() as { metadata: { name: string } } & Record<string, any>;
};

beforeAll(async () => {
  namespace = await freshNamespace(kc, 'cel');
  ok(await send('POST', CRDS, gizmoCrd()));
  await eventually(
    async () => {
      ok(await rawRequest(kc, 'GET', `${base}/${namespace}/${plural}`));
    },
    20_000,
    200,
  );
});

afterAll(async () => {
  await rawRequest(kc, 'DELETE', `${CRDS}/${crdName}`);
});

describe('CEL validation rules', () => {
  it('accept an object every rule holds for', async () => {
    const created = ok(
      await create(
        gizmo('fine', {
          minReplicas: 1,
          maxReplicas: 3,
          mode: 'fast',
          tags: ['a', 'x-b'],
          owner: 'me',
          memory: '512Mi',
        }),
      ),
    );
    expect(created.spec.maxReplicas).toBe(3);
  });

  it('reject with each rule message, reason and field', async () => {
    const res = await create(
      gizmo('bad', {
        minReplicas: 5,
        maxReplicas: 3,
        forbidden: 'yes',
        tags: ['B', 'x-a', 'x-b'],
        memory: '12345Mi',
      }),
    );
    expect(causesOf(res)).toEqual(
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.memory',
          message: 'Invalid value: "string": memory must be a binary quantity of at most 4 digits',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.minReplicas',
          message: 'Invalid value: "object": minReplicas must not exceed maxReplicas',
        },
        {
          reason: 'FieldValueRequired',
          field: 'spec.owner',
          message: 'Required value: owner is required with tags',
        },
        {
          reason: 'FieldValueForbidden',
          field: 'spec',
          message: 'Forbidden: forbidden may not be set, got yes',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.tags',
          message: 'Invalid value: "array": tags must be lower case',
        },
        {
          reason: 'FieldValueInvalid',
          field: 'spec.tags',
          message: `Invalid value: "array": failed rule: self.filter(t, t.startsWith('x-')).size() <= 1`,
        },
      ].sort((a, b) => a.field.localeCompare(b.field)),
    );
    expect(res.json().message).toContain(`Gizmo.${group} "bad" is invalid: [`);
  });

  it('report a rule that fails to evaluate, with the rule named', async () => {
    expect(causesOf(await create(gizmo('partial', { minReplicas: 1 })))).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message:
          'Invalid value: "object": no such key: maxReplicas evaluating rule: minReplicas must not exceed maxReplicas',
      },
    ]);
  });

  it('evaluate transition rules on update only, against the old value', async () => {
    const created = ok(await create(gizmo('moded', { minReplicas: 1, maxReplicas: 1, mode: 'slow' })));
    const same = ok(await replace({ ...created, spec: { ...created.spec, maxReplicas: 2 } }));
    const res = await replace({ ...same, spec: { ...same.spec, mode: 'fast' } });
    expect(causesOf(res)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.mode',
        message: 'Invalid value: "string": mode is immutable',
      },
    ]);
    expect(res.json().message).toBe(
      `Gizmo.${group} "moded" is invalid: spec.mode: Invalid value: "string": mode is immutable`,
    );
  });

  it('check status updates against the status rules', async () => {
    const created = ok(await create(gizmo('counted', { minReplicas: 1, maxReplicas: 1 })));
    const counted = ok(await replace({ ...created, status: { ready: 1, total: 2 } }, '/status'));
    expect(counted.status).toEqual({ ready: 1, total: 2 });
    const res = await replace({ ...counted, status: { ready: 3, total: 2 } }, '/status');
    expect(causesOf(res)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'status',
        message: 'Invalid value: "object": ready cannot exceed total',
      },
    ]);
  });

  it('ratchet: a value an update leaves unchanged fails a new rule with a warning, not an error', async () => {
    // Its own group: a second Gizmo kind in the same group would conflict with the first CRD's names.
    const ratchetGroup = 'ratchet.contract.sandflow.io';
    const name = `gizmos.${ratchetGroup}`;
    const path = `/apis/${ratchetGroup}/v1/namespaces/${namespace}/gizmos`;
    ok(await send('POST', CRDS, gizmoCrd(name)));
    const legacy = (n: string) => ({
      ...gizmo(n, { minReplicas: 1, maxReplicas: 2, owner: 'legacy' }),
      apiVersion: `${ratchetGroup}/v1`,
    });
    const created = await eventually(async () => ok(await send('POST', path, legacy('old'))), 20_000, 200);
    const crd = ok(await rawRequest(kc, 'GET', `${CRDS}/${name}`));
    const retired = { rule: "self != 'legacy'", message: 'owner legacy is retired' };
    ok(await send('PUT', `${CRDS}/${name}`, { ...gizmoCrd(name, [], [retired]), metadata: crd.metadata }));
    await eventually(
      async () => expect((await send('POST', `${path}?dryRun=All`, legacy('probe'))).status).toBe(422),
      20_000,
      200,
    );
    const res = await send('PUT', `${path}/old`, { ...created, spec: { ...created.spec, maxReplicas: 3 } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.warning).toBe(
      '299 - "spec.owner: Invalid value: \\"string\\": owner legacy is retired"',
    );
    expect(causesOf(await send('POST', path, legacy('new')))).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.owner',
        message: 'Invalid value: "string": owner legacy is retired',
      },
    ]);
    await rawRequest(kc, 'DELETE', `${CRDS}/${name}`);
  });

  it('skip the rules while schema errors block them', async () => {
    const res = await create(gizmo('typed', { minReplicas: 'many', maxReplicas: 1 }));
    const causes = causesOf(res);
    expect(causes.map((c) => c.reason)).toEqual(['FieldValueInvalid', 'FieldValueTypeInvalid']);
    expect(causes[0]!.message).toBe(
      'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
  });

  it('refuse a CRD whose rule does not compile, naming the rule', async () => {
    const name = `${uniqueName('broken')}.${group}`;
    const res = await send('POST', CRDS, gizmoCrd(name, [{ rule: 'self.minReplicas <' }]));
    const causes = causesOf(res);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].rule',
    });
    expect(causes[0]!.message).toMatch(
      /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.minReplicas <", .*\}: compilation failed: ERROR: <input>:1:/,
    );
  });

  const ruleAt = `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3]`;
  it.each([
    [{ rule: '' }, `${ruleAt}.rule`, 'FieldValueRequired', 'Required value: rule is not specified'],
    [
      { rule: 'true', reason: 'FieldValueBogus' },
      `${ruleAt}.reason`,
      'FieldValueNotSupported',
      'Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    ],
    [
      { rule: 'true', fieldPath: '.nope' },
      `${ruleAt}.fieldPath`,
      'FieldValueInvalid',
      'Invalid value: ".nope": fieldPath must be a valid path',
    ],
    [
      { rule: 'true', message: 'two\nlines' },
      `${ruleAt}.message`,
      'FieldValueInvalid',
      'Invalid value: "two\\nlines": message must not contain line breaks',
    ],
    [
      { rule: 'true', messageExpression: '1' },
      `${ruleAt}.messageExpression`,
      'FieldValueInvalid',
      'Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"1", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string',
    ],
    [
      { rule: 'self.minReplicas > 0', optionalOldSelf: true },
      `${ruleAt}.optionalOldSelf`,
      'FieldValueInvalid',
      'Invalid value: true: may not be set if oldSelf is not used in rule',
    ],
  ])('refuse the CRD rule %o', async (badRule, field, reason, message) => {
    const name = `${uniqueName('rules')}.${group}`;
    expect(causesOf(await send('POST', CRDS, gizmoCrd(name, [badRule])))).toEqual([
      { reason, field, message },
    ]);
  });

  it('refuse a rule that does not evaluate to a bool', async () => {
    const name = `${uniqueName('nonbool')}.${group}`;
    const causes = causesOf(await send('POST', CRDS, gizmoCrd(name, [{ rule: "'text'" }])));
    expect(causes).toEqual([
      expect.objectContaining({
        field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[3].rule',
        message: expect.stringMatching(/: cel expression must evaluate to a bool$/),
      }),
    ]);
  });
});
