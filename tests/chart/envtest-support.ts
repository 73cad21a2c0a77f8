// Helpers of the chart-envtest suites (rbac.envtest.ts, admission-policy.envtest.ts) on hack/envtest's
// real kube-apiserver: kubectl as its admin, the chart rendered by helm, a ServiceAccount's own
// bound token, pods/exec opened the two ways clients do, and a refusal's status and message.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');

export function kubectl(args: string[], input?: string) {
  const r = spawnSync('kubectl', args, { encoding: 'utf8', ...(input ? { input } : {}) });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

export function mustKubectl(args: string[], input?: string): string {
  const r = kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.err}`);
  return r.out;
}

/** The objects of the chart rendered by `helm` as `release` in `namespace` whose kind is in `kinds`. */
export function chartObjects(
  helm: string,
  release: string,
  namespace: string,
  kinds: string[],
  extra: string[] = [],
): { kind: string; metadata: { name: string } }[] {
  const rendered = spawnSync(
    helm,
    [
      'template',
      release,
      path.join(root, 'charts/sandflow'),
      '--namespace',
      namespace,
      '--kube-version',
      '1.33.0',
      '-f',
      path.join(root, 'charts/sandflow/ci/default-values.yaml'),
      ...extra,
    ],
    { encoding: 'utf8' },
  );
  if (rendered.status !== 0) throw new Error(`helm template ${release}: ${rendered.stderr}`);
  return parseAllDocuments(rendered.stdout)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string } } | null)
    .filter((m): m is { kind: string; metadata: { name: string } } => !!m && kinds.includes(m.kind));
}

/** The admin's server, authenticated as ServiceAccount `sa` of `namespace` with a bound token. */
export function tokenConfig(admin: KubeConfig, sa: string, namespace: string): KubeConfig {
  const token = mustKubectl(['create', 'token', sa, '-n', namespace, '--duration=1h']).trim();
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: sa, token }],
    contexts: [{ name: sa, cluster: cluster.name, user: sa }],
    currentContext: sa,
  });
  return kc;
}

/**
 * Opens pods/exec the two ways clients do: `GET` with a WebSocket upgrade (client-node, kubectl
 * since 1.30) or `POST` (SPDY, older kubectl). The API server authorizes the request first (GET:
 * verb get; POST: verb create), then admits it (a CONNECT), and only then looks for the Pod's
 * node, so with no kubelet an allowed request ends in 400 "does not have a host assigned" and a
 * refused one in 403.
 */
export async function openExec(
  kc: KubeConfig,
  method: 'GET' | 'POST',
  namespace: string,
  pod: string,
): Promise<{ status: number; message: string }> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const server = new URL(kc.getCurrentCluster()!.server);
  const upgrade =
    method === 'GET'
      ? {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
          'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
        }
      : {};
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        ...opts,
        hostname: server.hostname,
        port: server.port,
        method,
        path: `/api/v1/namespaces/${namespace}/pods/${pod}/exec?command=true&stdout=true`,
        headers: { ...opts.headers, ...upgrade },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          let message = body;
          try {
            message = (JSON.parse(body) as { message?: string }).message ?? body;
          } catch {
            /* not a Status */
          }
          resolve({ status: res.statusCode ?? 0, message });
        });
      },
    );
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, message: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client-node call's outcome: 200 when it succeeds, else the refusal's code and message. */
export async function statusOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
    return { code: 200, message: '' };
  } catch (e) {
    if (e instanceof ApiException) {
      // client-node hands a refusal's Status over as its JSON text.
      const body = e.body as string | { message?: string };
      const status = typeof body === 'string' ? (JSON.parse(body) as { message?: string }) : body;
      return { code: e.code, message: status.message ?? '' };
    }
    throw e;
  }
}
