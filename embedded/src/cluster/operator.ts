// Cluster mode, operator Deployment: the operator alone, against the cluster it runs in (in-cluster
// service-account credentials, or KUBECONFIG outside a Pod). Two or more replicas elect a leader
// through a Lease in their own namespace; only the leader reconciles. Started by the Helm chart
// and config/operator as `node --import tsx embedded/src/cluster/operator.ts`.
import { KubeConfig } from '@kubernetes/client-node';
import { startOperator } from '@sandflow/operator';
import pino from 'pino';
import { z } from 'zod';

const envSchema = z.object({
  // The downward API sets POD_NAMESPACE; the Lease lives there (the chart's Role allows only that).
  POD_NAMESPACE: z.string().min(1).default('default'),
  POD_NAME: z.string().min(1).optional(),
  SANDFLOW_LEASE_NAME: z.string().min(1).default('sandflow-operator'),
  SANDFLOW_PLATFORM_CLUSTER: z.string().min(1).optional(),
  // The chart's ClusterRole for Argo's executor: the operator binds the ServiceAccount
  // sandflow-workflow to it in each namespace where workflows run, and they run as that one.
  SANDFLOW_EXECUTOR_CLUSTERROLE: z.string().min(1).optional(),
  SANDFLOW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

async function main(): Promise<void> {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const env = parsed.data;
  const log = pino({ name: 'sandflow-operator', level: env.SANDFLOW_LOG_LEVEL });
  const kc = new KubeConfig();
  kc.loadFromDefault(); // in a Pod: the service account's token and CA
  const operator = await startOperator({
    kc,
    logger: log,
    leaseNamespace: env.POD_NAMESPACE,
    leaseName: env.SANDFLOW_LEASE_NAME,
    ...(env.POD_NAME ? { identity: env.POD_NAME } : {}),
    ...(env.SANDFLOW_PLATFORM_CLUSTER ? { platformClusterName: env.SANDFLOW_PLATFORM_CLUSTER } : {}),
    ...(env.SANDFLOW_EXECUTOR_CLUSTERROLE
      ? { executor: { clusterRole: env.SANDFLOW_EXECUTOR_CLUSTERROLE } }
      : {}),
  });
  log.info({ server: kc.getCurrentCluster()?.server, lease: env.SANDFLOW_LEASE_NAME }, 'operator started');
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping');
      // Releasing the Lease lets the other replica take over at once rather than after its duration.
      void operator.stop({ release: true }).then(() => process.exit(0));
    });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error && e.message.startsWith('invalid configuration:') ? e.message : e);
  process.exit(1);
});
