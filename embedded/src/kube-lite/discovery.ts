import { VERBS, type ResourceInfo, type ResourceRegistry } from './registry.js';

export const KUBE_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kube-lite',
  gitCommit: 'kube-lite',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'node',
  compiler: 'kube-lite',
  platform: `${process.platform}/${process.arch}`,
};

function apiResources(resources: ResourceInfo[]) {
  const out: Record<string, unknown>[] = [];
  for (const r of resources) {
    out.push({
      name: r.plural,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VERBS,
      ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories.length ? { categories: r.categories } : {}),
    });
    if (r.hasStatus)
      out.push({
        name: `${r.plural}/status`,
        singularName: '',
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['get', 'patch', 'update'],
      });
  }
  return out;
}

/** APIResourceList for one group/version, or undefined when nothing is served there. */
export function resourceList(registry: ResourceRegistry, group: string, version: string) {
  const resources = registry.all().filter((r) => r.group === group && r.versions.includes(version));
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: apiResources(resources),
  };
}

export function coreVersions(address: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }],
  };
}

function apiGroup(name: string, versions: string[]) {
  const gv = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gv, preferredVersion: gv[0] };
}

export function groupList(registry: ResourceRegistry) {
  const groups = [...registry.groups().entries()]
    .filter(([g]) => g !== '')
    .sort(([a], [b]) => a.localeCompare(b));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([g, v]) => apiGroup(g, v)) };
}

export function group(registry: ResourceRegistry, name: string) {
  const versions = registry.groups().get(name);
  if (!versions || name === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name, versions) };
}
