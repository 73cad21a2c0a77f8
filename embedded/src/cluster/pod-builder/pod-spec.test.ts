// The builder Pod (pure): what it runs, as whom, with what; and what is read back from one.
import type { V1Pod } from '@kubernetes/client-node';
import type { BuilderStartOptions } from '@sandflow/images';
import { describe, expect, it } from 'vitest';
import {
  BUILDER_LABEL,
  DEFAULT_RESOURCES,
  MAIN_CONTAINER,
  builderPod,
  containerOf,
  podProgress,
  type BuilderPodInput,
} from './pod-spec.js';

const start: BuilderStartOptions = {
  image: 'registry.example.org/team/python:3.12',
  architecture: 'amd64',
  uid: 1000,
  gid: 2000,
  owner: 'user-1',
  organization: '7f0c5a4e-1d2b-4c3a-9e8f-0a1b2c3d4e5f',
};
const DIGEST = `sha256:${'a'.repeat(64)}`;
const input = (over: Partial<BuilderPodInput> = {}, startOver: Partial<BuilderStartOptions> = {}) =>
  builderPod({
    id: '0123456789abcdef',
    namespace: 'sf-acme',
    pinnedImage: `registry.example.org/team/python@${DIGEST}`,
    digest: DIGEST,
    start: { ...start, ...startOver },
    helperImage: 'busybox:1.36.1-musl',
    startedAt: '2026-11-24T02:00:00.000Z',
    terminationGraceSeconds: 3,
    maxLifetimeSeconds: 86_400,
    ...over,
  });

describe('builderPod', () => {
  const pod = input();
  const spec = pod.spec!;
  const main = spec.containers[0]!;
  const [tools, snapshot] = spec.initContainers!;

  it('is named and labelled after the builder, with who started it and from what', () => {
    expect(pod.metadata).toMatchObject({
      name: 'sandflow-builder-0123456789abcdef',
      namespace: 'sf-acme',
      labels: {
        'app.kubernetes.io/managed-by': 'sandflow',
        [BUILDER_LABEL]: '0123456789abcdef',
        'sandflow.io/organization': start.organization,
      },
      annotations: {
        'sandflow.io/builder-owner': 'user-1',
        'sandflow.io/builder-organization': start.organization,
        'sandflow.io/builder-image': 'registry.example.org/team/python:3.12',
        'sandflow.io/builder-image-digest': DIGEST,
        'sandflow.io/builder-architecture': 'amd64',
        'sandflow.io/builder-started-at': '2026-11-24T02:00:00.000Z',
      },
    });
  });

  it.each([
    { container: 'tools', image: 'busybox:1.36.1-musl', command: /cp \/bin\/busybox \/\.sandflow\/busybox/ },
    {
      container: 'snapshot',
      image: `registry.example.org/team/python@${DIGEST}`,
      command:
        /find \/ -xdev .* > \/\.sandflow\/start\.list\.part 2>\/dev\/null; exec \/\.sandflow\/busybox mv/,
    },
    { container: MAIN_CONTAINER, image: `registry.example.org/team/python@${DIGEST}`, command: /sleep 3600/ },
  ])('$container runs $image under the tools', ({ container, image, command }) => {
    const c = [...spec.initContainers!, ...spec.containers].find((x) => x.name === container)!;
    expect(c.image).toBe(image);
    expect(c.command!.slice(0, 3)).toEqual([
      container === 'tools' ? '/bin/busybox' : '/.sandflow/busybox',
      'sh',
      '-c',
    ]);
    expect(c.command![3]).toMatch(command);
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('shares the tools read-only with the builder container, writable with the init containers', () => {
    expect(spec.volumes).toEqual([{ name: 'tools', emptyDir: { sizeLimit: '64Mi' } }]);
    expect(main.volumeMounts).toEqual([{ name: 'tools', mountPath: '/.sandflow', readOnly: true }]);
    expect(tools!.volumeMounts).toEqual([{ name: 'tools', mountPath: '/.sandflow' }]);
    expect(snapshot!.volumeMounts).toEqual([{ name: 'tools', mountPath: '/.sandflow' }]);
  });

  it('stays alive without a token, restarts or privileges, and is bounded in time and resources', () => {
    expect(spec).toMatchObject({
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 3,
      activeDeadlineSeconds: 86_400,
      hostname: 'sandbox-01234567',
    });
    expect(main.resources).toEqual(DEFAULT_RESOURCES);
    expect(main.command![3]).toMatch(/^trap 'exit 0' TERM;/);
  });

  it.each([
    { case: 'a user', uid: 1000, gid: 2000, nonRoot: true },
    { case: 'root', uid: 0, gid: 0, nonRoot: undefined },
  ])('runs every container as $case ($uid:$gid)', ({ uid, gid, nonRoot }) => {
    const sc = input({}, { uid, gid }).spec!.securityContext!;
    expect(sc).toMatchObject({ runAsUser: uid, runAsGroup: gid, seccompProfile: { type: 'RuntimeDefault' } });
    expect(sc.runAsNonRoot).toBe(nonRoot);
  });

  it.each([
    { architecture: 'amd64', node: 'amd64' },
    { architecture: 'arm', node: 'arm64' },
  ] as const)('lands on a $node node for $architecture', ({ architecture, node }) => {
    expect(input({}, { architecture }).spec!.nodeSelector).toEqual({ 'kubernetes.io/arch': node });
  });

  it.each([
    { pullSecret: undefined, expected: undefined },
    { pullSecret: 'sandflow-registry', expected: [{ name: 'sandflow-registry' }] },
  ])('pulls with $pullSecret', ({ pullSecret, expected }) => {
    expect(input(pullSecret ? { pullSecret } : {}).spec!.imagePullSecrets).toEqual(expected);
  });

  it("mounts the organization's folders in the builder and the snapshot, which leaves them out", () => {
    const p = input({}, { mounts: [{ hostPath: '/data/org', mountPath: '/mnt/org', readOnly: true }] });
    expect(p.spec!.volumes![1]).toEqual({
      name: 'mount-0',
      hostPath: { path: '/data/org', type: 'Directory' },
    });
    for (const c of [p.spec!.containers[0]!, p.spec!.initContainers![1]!]) {
      expect(c.volumeMounts).toContainEqual({ name: 'mount-0', mountPath: '/mnt/org', readOnly: true });
    }
    expect(p.spec!.initContainers![1]!.command![3]).toContain(`-path '/mnt/org'`);
  });

  it('labels the organization only when it is a valid label value', () => {
    const p = input({}, { organization: 'not a label value!' });
    expect(p.metadata!.labels).not.toHaveProperty('sandflow.io/organization');
    expect(p.metadata!.annotations!['sandflow.io/builder-organization']).toBe('not a label value!');
  });
});

describe('containerOf', () => {
  const pod = input();
  it.each([
    {
      case: 'a running builder',
      pod: { ...pod, status: { phase: 'Running' } },
      expected: {
        id: '0123456789abcdef',
        image: start.image,
        architecture: 'amd64',
        owner: 'user-1',
        organization: start.organization,
        startedAt: '2026-11-24T02:00:00.000Z',
      },
    },
    { case: 'one going away', pod: { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date() } } },
    { case: 'one that ended', pod: { ...pod, status: { phase: 'Failed' } } },
    { case: 'a Pod that is no builder', pod: { metadata: { name: 'x', labels: {} } } },
  ])('$case', ({ pod: p, expected }) => {
    expect(containerOf(p as V1Pod)).toEqual(expected);
  });
});

describe('podProgress', () => {
  const pod = input();
  const withStatus = (status: V1Pod['status']) => ({ ...pod, status }) as V1Pod;
  it.each([
    {
      case: 'the builder container running',
      status: { phase: 'Running', containerStatuses: [{ name: MAIN_CONTAINER, state: { running: {} } }] },
      expected: { state: 'running' },
    },
    {
      case: 'not scheduled yet',
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            message: '0/3 nodes are available: 3 node(s) didn’t match selector',
          },
        ],
      },
      expected: { state: 'waiting', why: '0/3 nodes are available: 3 node(s) didn’t match selector' },
    },
    {
      case: 'initializing',
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'tools', state: { waiting: { reason: 'PodInitializing' } } }],
      },
      expected: { state: 'waiting', why: 'PodInitializing' },
    },
    {
      case: 'the source image not pullable',
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'tools', state: { terminated: { exitCode: 0 } } },
          { name: 'snapshot', state: { waiting: { reason: 'ErrImagePull', message: 'manifest unknown' } } },
        ],
      },
      expected: {
        state: 'failed',
        image: `registry.example.org/team/python@${DIGEST}`,
        why: `container snapshot (registry.example.org/team/python@${DIGEST}): ErrImagePull: manifest unknown`,
      },
    },
    {
      case: 'the helper image not pullable',
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'tools', state: { waiting: { reason: 'ImagePullBackOff' } } }],
      },
      expected: {
        state: 'failed',
        image: 'busybox:1.36.1-musl',
        why: 'container tools (busybox:1.36.1-musl): ImagePullBackOff',
      },
    },
    {
      case: 'an init container failing',
      status: {
        phase: 'Failed',
        initContainerStatuses: [
          {
            name: 'tools',
            state: { terminated: { exitCode: 127, reason: 'Error', message: 'cp: not found' } },
          },
        ],
      },
      expected: { state: 'failed', why: 'container tools exited 127 (Error): cp: not found' },
    },
    {
      case: 'the Pod ended',
      status: { phase: 'Failed', message: 'Pod was active on the node longer than the specified deadline' },
      expected: {
        state: 'failed',
        why: 'the Pod is Failed: Pod was active on the node longer than the specified deadline',
      },
    },
  ])('$case', ({ status, expected }) => {
    expect(podProgress(withStatus(status as V1Pod['status']))).toEqual(expected);
  });
});
