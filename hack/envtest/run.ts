// Real-API-server test tier: start etcd + kube-apiserver on loopback, install
// crds/*.yaml and Argo's (embedded/argo-crds/*.yaml), run the kube contract suite
// against them, shut everything down.
//
//   npm run test:envtest                    # build (or reuse) binaries, run `vitest --project kube`
//   npm run test:envtest -- -t 'configmap'  # extra arguments go to vitest
//   npm run test:envtest -- --serve         # start the server, print KUBECONFIG, wait for Ctrl-C
//   KUBEBUILDER_ASSETS=/path npm run test:envtest   # use prebuilt kube-apiserver and etcd
//
// Env: KUBEBUILDER_ASSETS  folder holding kube-apiserver and etcd (skips the Go build)
//      ENVTEST_KEEP=1      keep the temp dir (certs, kubeconfig, logs) for debugging
//      KUBECTL             kubectl to use (default /usr/bin/kubectl, else PATH)
// See hack/envtest/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const t0 = Date.now();
const secs = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)}s`;
const log = (msg: string): void => console.log(`[envtest] ${msg}`);

const argv = process.argv.slice(2);
const serve = argv.includes('--serve');
const vitestArgs = argv.filter((a) => a !== '--serve');
const keep = process.env.ENVTEST_KEEP === '1';
const kubectl = process.env.KUBECTL ?? (existsSync('/usr/bin/kubectl') ? '/usr/bin/kubectl' : 'kubectl');

// ---------------------------------------------------------------- cleanup ---
const children: { name: string; proc: ChildProcess }[] = [];
let tmp: string | undefined;
let cleaning: Promise<void> | undefined;

const alive = (proc: ChildProcess): boolean => proc.exitCode === null && proc.signalCode === null;
function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal); // every child is its own process group leader (detached)
  } catch {
    /* already gone */
  }
}

async function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    // Stop in reverse start order: tests, then kube-apiserver, then etcd.
    for (const { proc } of [...children].reverse()) {
      if (!alive(proc)) {
        killGroup(proc, 'SIGKILL'); // stray grandchildren of an exited leader
        continue;
      }
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      killGroup(proc, 'SIGTERM');
      const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      killGroup(proc, 'SIGKILL');
    }
    if (tmp && !keep) rmSync(tmp, { recursive: true, force: true });
    else if (tmp) log(`kept ${tmp}`);
  })();
  return cleaning;
}

// Last resort if the process exits without going through cleanup().
process.on('exit', () => {
  for (const { proc } of children) killGroup(proc, 'SIGKILL');
  if (tmp && !keep) rmSync(tmp, { recursive: true, force: true });
});
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${sig}: shutting down`);
    void cleanup().then(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}

// ---------------------------------------------------------------- helpers ---
// All n ports are held open together, so they are distinct from each other.
// Another process may still take one between our close and the child's bind;
// startOnFreePorts retries that case.
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((res, rej) => {
          const srv = createServer();
          srv.unref();
          srv.on('error', rej);
          srv.listen(0, '127.0.0.1', () => res(srv));
        }),
    ),
  );
  const ports = servers.map((srv) => {
    const addr = srv.address();
    return typeof addr === 'object' && addr ? addr.port : 0;
  });
  await Promise.all(servers.map((srv) => new Promise((res) => srv.close(res))));
  return ports;
}

// Starts a server on fresh ports and waits until it is ready; when it dies
// because a port was taken meanwhile, tries again on other ports.
async function startOnFreePorts(
  name: string,
  count: number,
  launch: (ports: number[], attempt: number) => { proc: ChildProcess; ready: () => Promise<boolean> },
  timeoutMs: number,
): Promise<{ proc: ChildProcess; ports: number[] }> {
  for (let attempt = 1; ; attempt++) {
    const ports = await freePorts(count);
    const { proc, ready } = launch(ports, attempt);
    try {
      await waitFor(name, proc, ready, timeoutMs);
      return { proc, ports };
    } catch (e) {
      const output = tail(name);
      if (attempt < 3 && !alive(proc) && output.includes('address already in use')) {
        log(`${name}: a port was taken before it could bind (${ports.join(', ')}); trying other ports`);
        if (tmp) writeFileSync(join(tmp, `${name}.log`), '');
        continue;
      }
      console.error(output);
      throw e;
    }
  }
}

function run(cmd: string, args: string[], opts: { quiet?: boolean; input?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, input: opts.input ?? '' });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}\n${r.stdout}${r.stderr}`);
  }
  if (!opts.quiet && r.stderr.trim()) process.stderr.write(r.stderr);
  return r.stdout;
}

function start(name: string, bin: string, args: string[]): ChildProcess {
  if (!tmp) throw new Error('no temp dir');
  const logFile = join(tmp, `${name}.log`);
  const fd = openSync(logFile, 'a');
  // detached: own process group, so we can kill it and everything it started.
  const proc = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  children.push({ name, proc });
  proc.on('exit', (code, signal) => {
    if (!cleaning && !interrupted) log(`${name} exited unexpectedly (${code ?? signal}); see below`);
  });
  return proc;
}

function tail(name: string, lines = 40): string {
  if (!tmp) return '';
  try {
    return readFileSync(join(tmp, `${name}.log`), 'utf8')
      .split('\n')
      .slice(-lines)
      .join('\n');
  } catch {
    return '';
  }
}

function get(
  url: string,
  opts: { ca?: string; token?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
      u,
      {
        method: 'GET',
        timeout: 5_000,
        ...(opts.ca ? { ca: opts.ca } : {}),
        headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {},
      },
      (resp) => {
        let body = '';
        resp.setEncoding('utf8');
        resp.on('data', (c: string) => (body += c));
        resp.on('end', () => res({ status: resp.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', rej);
    req.end();
  });
}

async function waitFor(
  what: string,
  proc: ChildProcess,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!alive(proc)) throw new Error(`${what} exited (${proc.exitCode ?? proc.signalCode}) before ready`);
    try {
      if (await check()) return;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000}s ${last}`);
}

// --------------------------------------------------------------- binaries ---
async function binaries(): Promise<string> {
  const assets = process.env.KUBEBUILDER_ASSETS;
  if (assets) {
    for (const b of ['kube-apiserver', 'etcd']) {
      if (!existsSync(join(assets, b))) throw new Error(`KUBEBUILDER_ASSETS=${assets} has no ${b}`);
    }
    log(`using KUBEBUILDER_ASSETS=${assets}`);
    return assets;
  }
  const b0 = Date.now();
  // Async and in its own process group, so a signal can stop a long build.
  const build = spawn('bash', [join(here, 'build.sh'), 'core'], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push({ name: 'build', proc: build });
  const status = await new Promise<number | string>((r) => build.on('exit', (c, sig) => r(c ?? sig ?? 1)));
  if (status !== 0) throw new Error(`hack/envtest/build.sh failed (${status})`);
  log(`binaries ready in ${secs(b0)}`);
  return join(root, '.cache/envtest/bin');
}

// ------------------------------------------------------------------ certs ---
const SERVICE_CIDR = '10.0.0.0/24';
const SERVICE_IP = '10.0.0.1';

function certs(dir: string): { ca: string; cert: string; key: string } {
  const p = (f: string): string => join(dir, f);
  const ossl = (...args: string[]): string => run('openssl', args, { quiet: true });
  ossl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', p('ca.key'));
  ossl(
    'req',
    '-x509',
    '-new',
    '-key',
    p('ca.key'),
    '-subj',
    '/CN=sandflow-envtest-ca',
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    p('ca.crt'),
  );
  ossl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', p('apiserver.key'));
  ossl('req', '-new', '-key', p('apiserver.key'), '-subj', '/CN=kube-apiserver', '-out', p('apiserver.csr'));
  const san = [
    'IP:127.0.0.1',
    `IP:${SERVICE_IP}`,
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ].join(',');
  writeFileSync(
    p('ext.cnf'),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n` +
      `extendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  ossl(
    'x509',
    '-req',
    '-in',
    p('apiserver.csr'),
    '-CA',
    p('ca.crt'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    p('ext.cnf'),
    '-out',
    p('apiserver.crt'),
  );

  // Service-account token signing key pair.
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(p('sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(p('sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }));
  return { ca: p('ca.crt'), cert: p('apiserver.crt'), key: p('apiserver.key') };
}

// ------------------------------------------------------------------- main ---
async function main(): Promise<number> {
  const bin = await binaries();
  const s0 = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sandflow-envtest-'));
  tmp = dir;
  const { ca, cert, key } = certs(tmp);
  const caPem = readFileSync(ca, 'utf8');
  const token = `sandflow-admin-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  writeFileSync(join(tmp, 'tokens.csv'), `${token},sandflow-admin,sandflow-admin,"system:masters"\n`);

  const {
    proc: etcd,
    ports: [etcdClient],
  } = await startOnFreePorts(
    'etcd',
    2,
    ([client, peer], attempt) => ({
      proc: start('etcd', join(bin, 'etcd'), [
        '--name=default',
        `--data-dir=${join(dir, `etcd-${attempt}`)}`,
        `--listen-client-urls=http://127.0.0.1:${client}`,
        `--advertise-client-urls=http://127.0.0.1:${client}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=default=http://127.0.0.1:${peer}`,
        '--unsafe-no-fsync=true', // throwaway data: trade durability for speed
        '--log-level=warn',
      ]),
      ready: async () => (await get(`http://127.0.0.1:${client}/health`)).body.includes('"true"'),
    }),
    30_000,
  );
  log(`etcd ready on 127.0.0.1:${etcdClient} (${secs(s0)})`);

  const {
    proc: apiserver,
    ports: [apiPort],
  } = await startOnFreePorts(
    'kube-apiserver',
    1,
    ([port]) => ({
      proc: start('kube-apiserver', join(bin, 'kube-apiserver'), [
        `--etcd-servers=http://127.0.0.1:${etcdClient}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${port}`,
        `--tls-cert-file=${cert}`,
        `--tls-private-key-file=${key}`,
        `--client-ca-file=${ca}`,
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        '--authorization-mode=RBAC', // the admin token is in system:masters
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        // No controller-manager runs, so nothing would create the `default`
        // ServiceAccount that this admission plugin insists on (same as envtest).
        '--disable-admission-plugins=ServiceAccount',
        '--allow-privileged=true',
        '--profiling=false',
        ...(process.env.ENVTEST_APISERVER_ARGS ?? '').split(' ').filter(Boolean),
        `--cert-dir=${join(dir, 'cert-dir')}`,
      ]),
      ready: async () => (await get(`https://127.0.0.1:${port}/readyz`, { ca: caPem, token })).status === 200,
    }),
    120_000,
  );
  log(`kube-apiserver ready on https://127.0.0.1:${apiPort} (${secs(s0)})`);

  const kubeconfig = join(tmp, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: envtest',
      '  cluster:',
      `    server: https://127.0.0.1:${apiPort}`,
      `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
      'users:',
      '- name: admin',
      '  user:',
      `    token: ${token}`,
      'contexts:',
      '- name: envtest',
      '  context: {cluster: envtest, user: admin, namespace: default}',
      'current-context: envtest',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const kc = (...args: string[]): string => run(kubectl, ['--kubeconfig', kubeconfig, ...args]);

  // CRDs: every crds/*.yaml and Argo's full CRDs vendored in embedded/argo-crds (what a cluster
  // with Argo holds), server-side applied (no last-applied annotation size limit), then wait until
  // each CRD is Established.
  const c0 = Date.now();
  const files = ['crds', 'embedded/argo-crds'].flatMap((d) => {
    const dir = join(root, d);
    return existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => /\.ya?ml$/.test(f))
          .sort()
          .map((f) => join(dir, f))
      : [];
  });
  if (files.length === 0) {
    log('no crds/*.yaml to install');
  } else {
    const applied = kc(
      'apply',
      '--server-side',
      '--field-manager=sandflow-envtest',
      '-o',
      'name',
      ...files.flatMap((f) => ['-f', f]),
    )
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const crds = applied.filter((n) => n.startsWith('customresourcedefinition.'));
    if (crds.length > 0) kc('wait', '--for=condition=Established', '--timeout=60s', ...crds);
    log(
      `installed ${applied.length} objects from ${files.length} file(s), ${crds.length} CRDs Established (${secs(c0)})`,
    );
  }

  // kube-controller-manager with only the garbage collector and the namespace
  // controller: ownerReferences cascade and deleted namespaces finish
  // terminating, as on a real cluster. Optional: a KUBEBUILDER_ASSETS folder
  // usually has no kube-controller-manager. Started after the CRDs so that its
  // first discovery already sees them.
  if (existsSync(join(bin, 'kube-controller-manager'))) {
    const k0 = Date.now();
    const kcm = start('kube-controller-manager', join(bin, 'kube-controller-manager'), [
      `--kubeconfig=${kubeconfig}`,
      '--controllers=garbage-collector-controller,namespace-controller',
      '--leader-elect=false',
      '--secure-port=0', // no serving endpoint needed
    ]);
    // Ready when the garbage collector works: a dependent goes with its owner.
    const uid = kc(
      'create',
      'configmap',
      'envtest-gc-owner',
      '-n',
      'default',
      '-o',
      'jsonpath={.metadata.uid}',
    );
    const dependent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'envtest-gc-dependent',
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'envtest-gc-owner', uid }],
      },
    };
    run(kubectl, ['--kubeconfig', kubeconfig, 'create', '-f', '-'], { input: JSON.stringify(dependent) });
    kc('delete', 'configmap', 'envtest-gc-owner', '-n', 'default', '--wait=false');
    try {
      await waitFor(
        'kube-controller-manager',
        kcm,
        async () =>
          kc('get', 'configmap', '-n', 'default', '--ignore-not-found', 'envtest-gc-dependent') === '',
        90_000,
      );
    } catch (e) {
      console.error(tail('kube-controller-manager'));
      throw e;
    }
    log(`kube-controller-manager garbage collector working (${secs(k0)})`);
  } else {
    log(`no kube-controller-manager in ${bin}: garbage collection and namespace deletion will not happen`);
  }

  // Smoke: the server answers the way kubectl expects.
  const ns = kc('get', 'ns', '-o', 'name').trim().split('\n');
  const resources = kc('api-resources', '-o', 'name').trim().split('\n');
  log(
    `smoke: ${ns.length} namespaces, ${resources.length} API resources; ready in ${secs(s0)} (total ${secs(t0)})`,
  );

  if (serve) {
    log(
      `serving. In another shell:\n\n  export KUBECONFIG=${kubeconfig}\n  kubectl get ns\n\nCtrl-C to stop.`,
    );
    await new Promise<never>(() => {
      /* until a signal */
    });
  }

  const testDir = join(root, 'tests/kube-contract');
  const hasTests =
    existsSync(testDir) &&
    readdirSync(testDir, { recursive: true }).some((f) => String(f).endsWith('.test.ts'));
  if (!hasTests) {
    log('SKIPPED vitest: tests/kube-contract has no *.test.ts yet (server, CRDs and smoke checks passed)');
    return 0;
  }

  const v0 = Date.now();
  // chart-envtest: the chart's RBAC on this server (tests/chart/rbac.envtest.ts).
  log(`running: npx vitest run --project kube --project chart-envtest ${vitestArgs.join(' ')}`);
  const vitest = spawn(
    'npx',
    ['vitest', 'run', '--project', 'kube', '--project', 'chart-envtest', ...vitestArgs],
    {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, SANDFLOW_KUBE_TARGET: 'external', KUBECONFIG: kubeconfig },
    },
  );
  children.push({ name: 'vitest', proc: vitest });
  const code = await new Promise<number>((r) => vitest.on('exit', (c, sig) => r(c ?? (sig ? 1 : 0))));
  log(`vitest exited ${code} after ${secs(v0)}`);
  if (interrupted) return code || 1;
  if (!alive(apiserver) || !alive(etcd)) {
    console.error(tail('kube-apiserver'));
    return code || 1;
  }
  return code;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (e) {
  console.error(`[envtest] FAILED: ${(e as Error).message}`);
  exitCode = 1;
}
if (!interrupted) {
  await cleanup();
  log(`done in ${secs(t0)} (exit ${exitCode})`);
  process.exit(exitCode);
}
