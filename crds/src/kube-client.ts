// client-node plumbing shared by the operator and the local runner (not by the console:
// it is a subpath of its own, `@sandflow/crds/kube-client`, so browsers never load it).
import type { KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';

/** The HTTP status of a client-node error (its `code`, or `statusCode` on older shapes). */
export const statusCode = (e: unknown): number | undefined => {
  const err = e as { code?: number; statusCode?: number };
  return typeof err?.code === 'number' ? err.code : err?.statusCode;
};

/**
 * The KubeConfig for request/response API clients with one keep-alive HTTPS agent: client-node makes a
 * new agent (so a new TCP connection and TLS handshake on both ends) for every call otherwise, which
 * was a large share of the CPU time of a busy runner/operator and of kube-lite. Watches keep their own.
 */
export function keepAliveConfig(kc: KubeConfig): KubeConfig {
  type CreateAgent = (
    cluster: { server?: string; proxyUrl?: string } | undefined,
    o: https.AgentOptions,
  ) => unknown;
  let agent: https.Agent | undefined;
  const original = (kc as unknown as { createAgent: CreateAgent }).createAgent;
  const derived = Object.create(kc) as { createAgent: CreateAgent };
  derived.createAgent = (cluster, options) => {
    if (!cluster?.server?.startsWith('https:') || cluster.proxyUrl)
      return original.call(kc, cluster, options);
    return (agent ??= new https.Agent({
      ...options,
      keepAlive: true,
      keepAliveMsecs: 1000,
      scheduling: 'lifo',
    }));
  };
  return derived as unknown as KubeConfig;
}
