import { createHash } from 'node:crypto';
import { schemaFor } from './admission.js';
import type { ResourceInfo, ResourceRegistry } from './registry.js';
import type { JSONSchemaProps } from './types.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const objectMetaSchema = {
  description:
    'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    generateName: {
      type: 'string',
      description:
        'GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.',
    },
    namespace: {
      type: 'string',
      description: 'Namespace defines the space within which each name must be unique.',
    },
    uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
    resourceVersion: {
      type: 'string',
      description: 'An opaque value that represents the internal version of this object.',
    },
    generation: {
      type: 'integer',
      format: 'int64',
      description: 'A sequence number representing a specific generation of the desired state.',
    },
    creationTimestamp: {
      type: 'string',
      format: 'date-time',
      description:
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
    },
    deletionTimestamp: {
      type: 'string',
      format: 'date-time',
      description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
    },
    labels: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Map of string keys and values that can be used to organize and categorize objects.',
    },
    annotations: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Annotations is an unstructured key value map stored with a resource.',
    },
    finalizers: {
      type: 'array',
      items: { type: 'string' },
      description: 'Must be empty before the object is deleted from the registry.',
    },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      description: 'List of objects depended by this object.',
    },
    managedFields: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      description:
        'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
    },
  },
};

/** `sandflow.io` → `io.sandflow`, the prefix kube-apiserver gives definition names. */
export function definitionName(r: ResourceInfo, version: string): string {
  const group = r.group ? r.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${group}.${version}.${r.kind}`;
}

const gvk = (r: ResourceInfo, version: string) => [{ group: r.group, version, kind: r.kind }];

function kindSchema(r: ResourceInfo, version: string): Record<string, unknown> {
  const schema = structuredClone(schemaFor(r, version) ?? { type: 'object' }) as JSONSchemaProps &
    Record<string, unknown>;
  schema.type = 'object';
  schema.properties = {
    ...schema.properties,
    apiVersion: {
      type: 'string',
      description: 'APIVersion defines the versioned schema of this representation of an object.',
    },
    kind: {
      type: 'string',
      description: 'Kind is a string value representing the REST resource this object represents.',
    },
    metadata: {
      allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
      description: "Standard object's metadata.",
    } as unknown as JSONSchemaProps,
  };
  return { ...schema, 'x-kubernetes-group-version-kind': gvk(r, version) };
}

const param = (name: string, description: string) => ({
  name,
  in: 'query',
  description,
  schema: { type: 'string' },
  uniqueItems: true,
});
const WRITE_PARAMS = [
  param('dryRun', 'When present, indicates that modifications should not be persisted.'),
  param(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  param(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.',
  ),
];

function operations(r: ResourceInfo, version: string) {
  const ref = { $ref: `#/components/schemas/${definitionName(r, version)}` };
  const content = (types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: ref }]));
  const response = { '200': { description: 'OK', content: content(['application/json']) } };
  const ext = (action: string) => ({
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(r, version)[0],
  });
  const patchTypes = [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/apply-patch+yaml',
  ];
  const prefix = r.group ? `/apis/${r.group}/${version}` : `/api/${version}`;
  const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.plural}` : `${prefix}/${r.plural}`;
  return {
    [base]: {
      get: { operationId: `list${r.kind}`, responses: response, ...ext('list') },
      post: {
        operationId: `create${r.kind}`,
        parameters: WRITE_PARAMS,
        requestBody: { content: content(['*/*']) },
        responses: response,
        ...ext('post'),
      },
    },
    [`${base}/{name}`]: {
      get: { operationId: `read${r.kind}`, responses: response, ...ext('get') },
      put: {
        operationId: `replace${r.kind}`,
        parameters: WRITE_PARAMS,
        requestBody: { content: content(['*/*']) },
        responses: response,
        ...ext('put'),
      },
      patch: {
        operationId: `patch${r.kind}`,
        parameters: [...WRITE_PARAMS, param('force', 'Force is going to "force" Apply requests.')],
        requestBody: {
          content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { type: 'object' } }])),
        },
        responses: response,
        ...ext('patch'),
      },
      delete: { operationId: `delete${r.kind}`, responses: response, ...ext('delete') },
    },
  };
}

/** `api/v1`, `apis/sandflow.io/v1alpha1`, … each an OpenAPI v3 document. */
export function openApiV3Paths(registry: ResourceRegistry): Map<string, ResourceInfo[]> {
  const out = new Map<string, ResourceInfo[]>();
  for (const r of registry.all()) {
    for (const v of r.versions) {
      const key = r.group ? `apis/${r.group}/${v}` : `api/${v}`;
      out.set(key, [...(out.get(key) ?? []), r]);
    }
  }
  return out;
}

export function openApiV3Document(resources: ResourceInfo[], version: string) {
  const schemas: Record<string, unknown> = { [OBJECT_META]: objectMetaSchema };
  let paths: Record<string, unknown> = {};
  for (const r of resources) {
    schemas[definitionName(r, version)] = kindSchema(r, version);
    paths = { ...paths, ...operations(r, version) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}

export function openApiV3Root(registry: ResourceRegistry) {
  const paths: Record<string, unknown> = {};
  for (const [key, resources] of openApiV3Paths(registry)) {
    const hash = createHash('sha256')
      .update(JSON.stringify(resources.map((r) => [r.kind, r.schemas ?? null, r.versions])))
      .digest('hex')
      .slice(0, 32)
      .toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}
