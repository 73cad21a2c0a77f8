// Names Sandflow's parts agree on: labels, annotations, the quota object, the kinds they read and write.

/** Labels linking objects to the tenancy model and to each other (ARCHITECTURE.md). */
export const LABELS = {
  organization: 'sandflow.io/organization',
  group: 'sandflow.io/group',
  owner: 'sandflow.io/owner',
  session: 'sandflow.io/session',
  run: 'sandflow.io/run',
  workflow: 'sandflow.io/workflow',
  node: 'sandflow.io/node',
  /** The cluster manager an Argo workflow was assigned to. */
  clusterManager: 'sandflow.io/cluster-manager',
  platformOwned: 'sandflow.io/platform-owned',
  /** Set by Argo's cron controller on the workflows a CronWorkflow makes. */
  cronWorkflow: 'workflows.argoproj.io/cron-workflow',
} as const;

export const ANNOTATIONS = {
  /** On a Run made for a cron-made Argo workflow: the workflow it adopts. */
  argoWorkflow: 'sandflow.io/argo-workflow',
  /** On a group namespace: JSON { user: { cpu, memory, disk } }. */
  userQuotas: 'sandflow.io/user-quotas',
  /** On an organization namespace: the cluster choice algorithm. */
  schedulerAlgorithm: 'sandflow.io/scheduler-algorithm',
  /**
   * On a Workflow: its owner's group ids (comma-separated) when the API last saved it. Memberships
   * live in the database; the operator reads these to check the owner may use each sandbox.
   */
  ownerGroups: 'sandflow.io/owner-groups',
  /**
   * On an organization namespace, written by the API: JSON { cpu, memory, disk } the automatic
   * provisioner may lend above group quotas (admission reads it); absent when it is off.
   */
  provisioner: 'sandflow.io/provisioner',
  /** On an organization namespace, written by the API: JSON { base, points } (the runner's mount check). */
  mountPoints: 'sandflow.io/mount-points',
  /** Set by Argo's cron controller: when the workflow was due. */
  scheduledTime: 'workflows.argoproj.io/scheduled-time',
} as const;

/** The ResourceQuota of a group namespace (written by the API, read by admission). */
export const QUOTA_NAME = 'sandflow-quota';

export interface Kind {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

export const ARGO_GROUP = 'argoproj.io';
export const ARGO_VERSION = 'v1alpha1';
const SANDFLOW = { group: 'sandflow.io', version: 'v1alpha1' };
const ARGO = { group: ARGO_GROUP, version: ARGO_VERSION };

/** Core kinds the operator caches (read only: they are written by the API through CoreV1Api). */
export const CORE_KINDS = {
  namespace: { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
  resourceQuota: { group: '', version: 'v1', plural: 'resourcequotas', namespaced: true },
} satisfies Record<string, Kind>;

/** The collection path of a kind across namespaces (the core group lives under /api). */
export const kindPath = (kind: Kind) =>
  kind.group ? `/apis/${kind.group}/${kind.version}/${kind.plural}` : `/api/${kind.version}/${kind.plural}`;

export const KINDS = {
  workflow: { ...SANDFLOW, plural: 'workflows', namespaced: true },
  session: { ...SANDFLOW, plural: 'sessions', namespaced: true },
  run: { ...SANDFLOW, plural: 'runs', namespaced: true },
  sandbox: { ...SANDFLOW, plural: 'sandboxes', namespaced: true },
  clusterManager: { ...SANDFLOW, plural: 'clustermanagers', namespaced: false },
  argoWorkflow: { ...ARGO, plural: 'workflows', namespaced: true },
  cronWorkflow: { ...ARGO, plural: 'cronworkflows', namespaced: true },
} satisfies Record<string, Kind>;

/** `namespace/name`, or the name of a cluster-scoped object: the key of informers and queues. */
export const keyOf = (o: { metadata?: { namespace?: string; name?: string } }) =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata!.name!;

export const splitKey = (key: string): [string | undefined, string] => {
  const i = key.indexOf('/');
  return i < 0 ? [undefined, key] : [key.slice(0, i), key.slice(i + 1)];
};

/**
 * Argo task (and template) name of a workflow's sandbox node: `sb-` + its name with `_` as `-`
 * (task names allow [a-zA-Z0-9-]). The compiler names the steps so; the run mirror, the run
 * actions and the API's run files and variables find them by it.
 */
export const stepTaskName = (sandboxName: string) => `sb-${sandboxName.replace(/_/g, '-')}`;

/** The environment the platform gives every step after the sandbox's own variables. */
export const STEP_ENV = {
  /** The shared folder of the run's steps. */
  dir: 'SANDFLOW_DIR',
  /** The step's own output folder in it. */
  output: 'SANDFLOW_OUTPUT',
  sandbox: 'SANDFLOW_SANDBOX',
  run: 'SANDFLOW_RUN',
  /** A dynamic instance's number. */
  instance: 'SANDFLOW_INSTANCE',
  /** A dynamic instance's input file. */
  instanceInput: 'SANDFLOW_INSTANCE_INPUT',
} as const;
