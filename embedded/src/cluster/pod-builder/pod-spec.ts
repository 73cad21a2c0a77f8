// The Pod of a cluster-mode sandbox builder (see pod-builder.ts), and what is read back from one.
// Three containers share an emptyDir mounted at /.sandflow:
// - `tools` (the helper image, a static busybox) copies its busybox there, with applet links in
//   /.sandflow/bin for images that have no shell utilities of their own;
// - `snapshot` (the source image) lists every path of the image's root with its mode, size and
//   mtime into /.sandflow/start.list: what `changes` diffs against (snapshot.ts);
// - `builder` (the source image) only stays alive; /.sandflow is read-only there. Shells, uploads,
//   listings and commits run in it through pods/exec.
// All run as the user's UID and group's GID, without privilege escalation or capabilities, without
// a service account token. The Pod's image is pinned to the digest resolved at start, so a commit
// appends its layer to exactly what the user changed.
import type { V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import type { Architecture, BuilderContainer, BuilderStartOptions } from '@sandflow/images';
import { LABELS } from '@sandflow/kube';
import { BUSYBOX, TOOLS_DIR, listingScript } from './snapshot.js';

export { BUSYBOX, TOOLS_DIR };

export const BUILDER_LABEL = 'sandflow.io/builder';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const BUILDER_ANNOTATIONS = {
  owner: 'sandflow.io/builder-owner',
  organization: 'sandflow.io/builder-organization',
  image: 'sandflow.io/builder-image',
  /** The platform manifest the Pod runs (what a commit appends to). */
  digest: 'sandflow.io/builder-image-digest',
  architecture: 'sandflow.io/builder-architecture',
  startedAt: 'sandflow.io/builder-started-at',
} as const;

/** The container shells and commands run in. */
export const MAIN_CONTAINER = 'builder';
export const SNAPSHOT_FILE = `${TOOLS_DIR}/start.list`;
/** The organization's registry account in its namespace (api/src/services/clusters-registry.ts). */
export const REGISTRY_SECRET = 'sandflow-registry';

export const DEFAULT_RESOURCES: V1ResourceRequirements = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { cpu: '2', memory: '2Gi' },
};
const TOOLS_RESOURCES: V1ResourceRequirements = {
  requests: { cpu: '50m', memory: '32Mi' },
  limits: { cpu: '500m', memory: '128Mi' },
};

export interface BuilderPodInput {
  id: string;
  namespace: string;
  /** `registry/repository@sha256:…` of the platform manifest. */
  pinnedImage: string;
  digest: string;
  start: BuilderStartOptions;
  helperImage: string;
  startedAt: string;
  pullSecret?: string;
  resources?: V1ResourceRequirements;
  /** Seconds the Pod is given to stop (its shell gets TERM first). */
  terminationGraceSeconds: number;
  /** Seconds after which the cluster ends a forgotten builder (the Pod's activeDeadlineSeconds). */
  maxLifetimeSeconds: number;
}

export const podName = (id: string) => `sandflow-builder-${id}`;

/** The node architecture label's value for a sandbox architecture. */
export const nodeArchitecture = (a: Architecture) => (a === 'arm' ? 'arm64' : 'amd64');

/** Copies the helper's busybox into the shared folder and links its applets beside it. */
export const TOOLS_SCRIPT = [
  `cp /bin/busybox ${BUSYBOX}`,
  `chmod 0755 ${BUSYBOX}`,
  `mkdir -p ${TOOLS_DIR}/bin`,
  `for a in $(${BUSYBOX} --list); do ln -sf ../busybox ${TOOLS_DIR}/bin/"$a"; done`,
].join(' && ');

/** The start snapshot: the listing written beside the tools, complete before the builder starts. */
export function snapshotScript(mountPaths: string[]): string {
  return `${listingScript(mountPaths)} > ${SNAPSHOT_FILE}.part 2>/dev/null; exec ${BUSYBOX} mv ${SNAPSHOT_FILE}.part ${SNAPSHOT_FILE}`;
}

/** Stays alive until TERM (pid 1 ignores signals it does not handle). */
export const KEEP_ALIVE_SCRIPT = `trap 'exit 0' TERM; while :; do ${BUSYBOX} sleep 3600 & wait $!; done`;

export function builderPod(input: BuilderPodInput): V1Pod {
  const { start } = input;
  const mounts = start.mounts ?? [];
  const security = {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
  };
  const tools = { name: 'tools', mountPath: TOOLS_DIR };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(input.id),
      namespace: input.namespace,
      labels: {
        [MANAGED_BY_LABEL]: 'sandflow',
        [BUILDER_LABEL]: input.id,
        ...(isLabelValue(start.organization) ? { [LABELS.organization]: start.organization } : {}),
      },
      annotations: {
        [BUILDER_ANNOTATIONS.owner]: start.owner,
        [BUILDER_ANNOTATIONS.organization]: start.organization,
        [BUILDER_ANNOTATIONS.image]: start.image,
        [BUILDER_ANNOTATIONS.digest]: input.digest,
        [BUILDER_ANNOTATIONS.architecture]: start.architecture,
        [BUILDER_ANNOTATIONS.startedAt]: input.startedAt,
      },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostname: `sandbox-${input.id.slice(0, 8)}`,
      terminationGracePeriodSeconds: input.terminationGraceSeconds,
      activeDeadlineSeconds: input.maxLifetimeSeconds,
      nodeSelector: { 'kubernetes.io/arch': nodeArchitecture(start.architecture) },
      securityContext: {
        runAsUser: start.uid,
        runAsGroup: start.gid,
        ...(start.uid !== 0 ? { runAsNonRoot: true } : {}),
        seccompProfile: { type: 'RuntimeDefault' },
      },
      ...(input.pullSecret ? { imagePullSecrets: [{ name: input.pullSecret }] } : {}),
      initContainers: [
        {
          name: 'tools',
          image: input.helperImage,
          command: ['/bin/busybox', 'sh', '-c', TOOLS_SCRIPT],
          volumeMounts: [tools],
          securityContext: { ...security, readOnlyRootFilesystem: true },
          resources: TOOLS_RESOURCES,
        },
        {
          name: 'snapshot',
          image: input.pinnedImage,
          command: [BUSYBOX, 'sh', '-c', snapshotScript(mounts.map((m) => m.mountPath))],
          volumeMounts: [tools, ...mountsOf(mounts)],
          securityContext: { ...security, readOnlyRootFilesystem: true },
          resources: TOOLS_RESOURCES,
        },
      ],
      containers: [
        {
          name: MAIN_CONTAINER,
          image: input.pinnedImage,
          command: [BUSYBOX, 'sh', '-c', KEEP_ALIVE_SCRIPT],
          volumeMounts: [{ ...tools, readOnly: true }, ...mountsOf(mounts)],
          securityContext: security,
          resources: input.resources ?? DEFAULT_RESOURCES,
        },
      ],
      volumes: [
        { name: 'tools', emptyDir: { sizeLimit: '64Mi' } },
        ...mounts.map((m, i) => ({
          name: `mount-${i}`,
          hostPath: { path: m.hostPath, type: 'Directory' },
        })),
      ],
    },
  };
}

function mountsOf(mounts: NonNullable<BuilderStartOptions['mounts']>) {
  return mounts.map((m, i) => ({
    name: `mount-${i}`,
    mountPath: m.mountPath,
    readOnly: m.readOnly ?? false,
  }));
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const isLabelValue = (v: string) => v.length <= 63 && LABEL_VALUE.test(v);

/** The builder a Pod is, or undefined when it is not one (or is going away). */
export function containerOf(pod: V1Pod): BuilderContainer | undefined {
  const id = pod.metadata?.labels?.[BUILDER_LABEL];
  const a = pod.metadata?.annotations ?? {};
  if (!id || pod.metadata?.deletionTimestamp) return undefined;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return undefined;
  const architecture = a[BUILDER_ANNOTATIONS.architecture];
  return {
    id,
    image: a[BUILDER_ANNOTATIONS.image] ?? '',
    architecture: architecture === 'arm' ? 'arm' : 'amd64',
    owner: a[BUILDER_ANNOTATIONS.owner] ?? '',
    organization: a[BUILDER_ANNOTATIONS.organization] ?? '',
    startedAt: a[BUILDER_ANNOTATIONS.startedAt] ?? pod.metadata?.creationTimestamp?.toString() ?? '',
  };
}

/** Waiting reasons that will not go away by waiting longer. */
const HOPELESS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);

export type PodProgress =
  { state: 'running' } | { state: 'waiting'; why: string } | { state: 'failed'; why: string; image?: string };

/** Where a starting builder Pod is: running, still coming, or never going to run (and why). */
export function podProgress(pod: V1Pod): PodProgress {
  const status = pod.status ?? {};
  const images = new Map(
    [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, c.image]),
  );
  const statuses = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  for (const s of statuses) {
    const waiting = s.state?.waiting;
    if (waiting?.reason && HOPELESS.has(waiting.reason)) {
      const image = images.get(s.name) ?? s.image;
      return {
        state: 'failed',
        why: `container ${s.name} (${image}): ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
        ...(image ? { image } : {}),
      };
    }
    const done = s.state?.terminated;
    if (done && done.exitCode !== 0) {
      return {
        state: 'failed',
        why: `container ${s.name} exited ${done.exitCode}${done.reason ? ` (${done.reason})` : ''}${done.message ? `: ${done.message}` : ''}`,
      };
    }
  }
  if (status.phase === 'Failed' || status.phase === 'Succeeded') {
    return {
      state: 'failed',
      why: `the Pod is ${status.phase}${status.message ? `: ${status.message}` : ''}`,
    };
  }
  const main = status.containerStatuses?.find((s) => s.name === MAIN_CONTAINER);
  if (status.phase === 'Running' && main?.state?.running) return { state: 'running' };
  const unschedulable = status.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.message,
  );
  const waiting = statuses.find((s) => s.state?.waiting?.reason)?.state?.waiting;
  return {
    state: 'waiting',
    why:
      unschedulable?.message ??
      (waiting
        ? `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`
        : (status.phase ?? 'Pending')),
  };
}
