import type { JSONSchemaProps } from './types.js';

// Schemas for the built-in kinds kube-lite stores, so strict field validation and
// pruning treat them like kube-apiserver's typed decoding does. Metadata is checked
// separately (metadata.ts).

const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer' };
const bool: JSONSchemaProps = { type: 'boolean' };
const stringMap: JSONSchemaProps = { type: 'object', additionalProperties: str };
const free: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const quantity: JSONSchemaProps = { 'x-kubernetes-int-or-string': true };
const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'object',
  properties,
});
const top = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps =>
  obj({
    apiVersion: str,
    kind: str,
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    ...properties,
  });

const objectReference = obj({
  apiVersion: str,
  kind: str,
  name: str,
  namespace: str,
  uid: str,
  resourceVersion: str,
  fieldPath: str,
});

export const BUILTIN_SCHEMAS: Record<string, JSONSchemaProps> = {
  Namespace: top({
    spec: obj({ finalizers: { type: 'array', items: str } }),
    status: obj({ phase: str, conditions: { type: 'array', items: free } }),
  }),
  ConfigMap: top({ data: stringMap, binaryData: stringMap, immutable: bool }),
  Secret: top({ data: stringMap, stringData: stringMap, type: str, immutable: bool }),
  ResourceQuota: top({
    spec: obj({
      hard: { type: 'object', additionalProperties: quantity },
      scopes: { type: 'array', items: str },
      scopeSelector: free,
    }),
    status: obj({
      hard: { type: 'object', additionalProperties: quantity },
      used: { type: 'object', additionalProperties: quantity },
    }),
  }),
  Event: top({
    involvedObject: objectReference,
    reason: str,
    message: str,
    source: obj({ component: str, host: str }),
    firstTimestamp: { type: 'string', nullable: true },
    lastTimestamp: { type: 'string', nullable: true },
    count: int,
    type: str,
    eventTime: { type: 'string', nullable: true },
    series: free,
    action: str,
    related: objectReference,
    reportingComponent: str,
    reportingInstance: str,
  }),
  ServiceAccount: top({
    secrets: { type: 'array', items: objectReference },
    imagePullSecrets: { type: 'array', items: obj({ name: str }) },
    automountServiceAccountToken: bool,
  }),
  Lease: top({
    spec: obj({
      holderIdentity: { type: 'string', nullable: true },
      leaseDurationSeconds: { type: 'integer', nullable: true },
      acquireTime: { type: 'string', nullable: true },
      renewTime: { type: 'string', nullable: true },
      leaseTransitions: { type: 'integer', nullable: true },
      strategy: str,
      preferredHolder: str,
    }),
  }),
  CustomResourceDefinition: top({ spec: free, status: free }),
  Pod: top({ spec: free, status: free }),
};
