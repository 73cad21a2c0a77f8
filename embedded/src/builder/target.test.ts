import { LayoutStore, parseReference, type CredentialsByHost } from '@sandflow/images';
import { freePort, registryMissing, startRegistry, type TestRegistry } from '@sandflow/images/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStore } from './target.js';

let registry: TestRegistry;
let closedPort: number;
const layout = new LayoutStore('/nonexistent/images');

describe.skipIf(registryMissing() !== undefined)('where a commit goes', () => {
  beforeAll(async () => {
    registry = await startRegistry();
    closedPort = await freePort();
  }, 30_000);
  afterAll(() => registry?.stop());

  it.each<{
    what: string;
    reference: () => string;
    registries?: string[];
    credentials?: CredentialsByHost;
    kind: 'registry' | 'layout';
    repository: () => string;
  }>([
    {
      what: 'a registry named in the reference that answers',
      reference: () => `${registry.host}/team/app:1`,
      kind: 'registry',
      repository: () => 'team/app',
    },
    {
      what: 'a registry named in the reference that does not answer',
      reference: () => `127.0.0.1:${closedPort}/team/app:1`,
      kind: 'layout',
      repository: () => `127.0.0.1:${closedPort}/team/app`,
    },
    {
      what: 'a short name',
      reference: () => 'app:1',
      kind: 'layout',
      repository: () => 'docker.io/library/app',
    },
    {
      what: 'a short name when Docker Hub is a configured registry',
      reference: () => 'app:1',
      registries: ['docker.io'],
      kind: 'registry',
      repository: () => 'library/app',
    },
    {
      what: 'a host with credentials',
      reference: () => 'ghcr.io/acme/app:1',
      credentials: new Map([['ghcr.io', { username: 'u', password: 'p' }]]),
      kind: 'registry',
      repository: () => 'acme/app',
    },
  ])('$what goes to the $kind', async ({ reference, registries, credentials, kind, repository }) => {
    const input = reference();
    const found = await commitStore(input, parseReference(input), {
      layout,
      credentials: credentials ?? new Map(),
      registries: registries ?? [],
      probeTimeoutMs: 2_000,
    });
    expect(found.kind).toBe(kind);
    expect(found.repository).toBe(repository());
    if (kind === 'layout') expect(found.store).toBe(layout);
  });
});
