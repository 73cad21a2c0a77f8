// Where a commit goes. A reference whose registry host is listed in `registries`, has credentials,
// or is written out in the reference and answers the distribution API (`GET /v2/` gives any HTTP
// answer within the probe's time) is pushed to that registry. Anything else (`my-sandbox:1` on an
// offline machine) goes to the local image layout under the name the runtime looks it up by
// (`docker.io/library/my-sandbox`), so steps find it there without a registry.
import {
  layoutName,
  registryFor,
  registryHost,
  type CredentialsByHost,
  type ImageReference,
  type ImageStore,
  type LayoutStore,
} from '@sandflow/images';

export interface CommitStore {
  store: ImageStore;
  repository: string;
  kind: 'registry' | 'layout';
}

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** Whether `input` names its registry host rather than leaving it to the Docker Hub default. */
function namesHost(input: string): boolean {
  const first = input.trim().split('/')[0] ?? '';
  return input.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
}

export async function answersDistributionApi(host: string, timeoutMs: number): Promise<boolean> {
  const scheme = LOCAL.test(host) ? 'http' : 'https';
  try {
    const res = await fetch(`${scheme}://${host}/v2/`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export async function commitStore(
  input: string,
  ref: ImageReference,
  options: {
    layout: LayoutStore;
    credentials: CredentialsByHost;
    registries: string[];
    probeTimeoutMs: number;
  },
): Promise<CommitStore> {
  const host = registryHost(ref.domain);
  const known =
    options.registries.includes(ref.domain) ||
    options.registries.includes(host) ||
    options.credentials.has(host);
  if (known || (namesHost(input) && (await answersDistributionApi(host, options.probeTimeoutMs)))) {
    return { store: registryFor(ref, options.credentials), repository: ref.repository, kind: 'registry' };
  }
  return { store: options.layout, repository: layoutName(ref), kind: 'layout' };
}
