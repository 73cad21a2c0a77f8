// What changed in a builder Pod, and saving it: the container's root listed now and diffed against
// the listing taken at start (snapshot.ts); a commit takes the changed paths' `tar c` through exec
// into a local folder (files.ts), writes it as one layer and appends it to the very manifest the
// Pod runs, in the source image's registry, by the same OCI code as the embedded builder, pushed to
// the target registry.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import {
  BuilderError,
  ImageError,
  appendLayer,
  layerBlob,
  normalizeReference,
  parseReference,
  registryFor,
  registryHost,
  writeLayer,
  type BuilderContainer,
  type CommitResult,
  type CommitTarget,
  type CredentialsByHost,
  type RootChange,
} from '@sandflow/images';
import tar from 'tar-stream';
import { removeTree } from '../../builder/reap.js';
import { messageOf } from './error-message.js';
import type { RunScript } from './exec.js';
import { TAR_OUT_SCRIPT, extractInto } from './files.js';
import { BUILDER_ANNOTATIONS, BUSYBOX, MAIN_CONTAINER, SNAPSHOT_FILE, TOOLS_DIR } from './pod-spec.js';
import { diffListings, listingScript, parseListing, tarPaths, type Listing } from './snapshot.js';

/** A builder's Pod, how to run a script in it, and its start listing (which its caller may keep). */
export interface BuilderAt {
  id: string;
  pod: V1Pod;
  run: RunScript;
  startListing: () => Promise<Listing>;
}

/** The organization's mount points: not listed (their contents are not the image's). */
const mountPathsOf = (pod: V1Pod) =>
  (pod.spec?.containers.find((c) => c.name === MAIN_CONTAINER)?.volumeMounts ?? [])
    .filter((m) => m.mountPath !== TOOLS_DIR)
    .map((m) => m.mountPath);

/** The listing the `snapshot` init container took when the builder started. */
export async function readStartListing(id: string, pod: V1Pod, run: RunScript): Promise<Listing> {
  const result = await run(`exec ${BUSYBOX} cat ${SNAPSHOT_FILE}`);
  if (result.exitCode !== 0)
    throw new Error(`builder ${id}: its start snapshot cannot be read: ${result.stderr.trim()}`);
  return parseListing(result.stdout.toString('utf8'), mountPathsOf(pod));
}

export async function rootChanges({ id, pod, run, startListing }: BuilderAt): Promise<RootChange[]> {
  const mounts = mountPathsOf(pod);
  try {
    const [before, now] = await Promise.all([startListing(), run(`${listingScript(mounts)} 2>/dev/null`)]);
    // find says 1 when a folder could not be read (not the user's to read): the rest is listed.
    if (now.exitCode !== 0 && now.stdout.length === 0)
      throw new Error(`listing its files failed (exit ${now.exitCode}): ${now.stderr.trim()}`);
    return diffListings(before, parseListing(now.stdout.toString('utf8'), mounts));
  } catch (error) {
    if (error instanceof BuilderError || (error as Error).message.startsWith(`builder ${id}`)) throw error;
    throw new Error(`builder ${id}: ${messageOf(error)}`, { cause: error });
  }
}

export async function commitChanges(
  builder: BuilderAt,
  container: BuilderContainer,
  target: CommitTarget,
  options: {
    credentials: (organization: string) => Promise<CredentialsByHost>;
    tmpDir?: string | undefined;
    localDomain?: string | undefined;
  },
): Promise<CommitResult> {
  const { id, pod } = builder;
  const ref = parseReference(target.reference);
  if (ref.digest)
    throw new BuilderError('BAD_PATH', `commit to ${target.reference}: name a tag, not a digest`);
  if (options.localDomain && ref.domain === options.localDomain)
    throw new BuilderError(
      'UNAVAILABLE',
      `builder ${id}: saving needs a registry in cluster mode (set the platform default registry or the organization's); ${target.reference} names none`,
    );
  const digest = pod.metadata?.annotations?.[BUILDER_ANNOTATIONS.digest];
  if (!digest) throw new Error(`builder ${id}: its Pod does not say which image digest it runs`);
  const source = parseReference(container.image);
  const credentials = await options.credentials(container.organization);
  const changes = await rootChanges(builder);
  const work = await fs.mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), `sandflow-commit-${id}-`));
  const root = path.join(work, 'root');
  await fs.mkdir(root);
  try {
    const owners = await fetchChanges(builder, changes, root);
    const layer = await writeLayer(
      root,
      changes,
      path.join(work, 'layer.tar.gz'),
      (rel) => owners.get(rel) ?? [0, 0],
    );
    const sameRegistry = registryHost(source.domain) === registryHost(ref.domain);
    const result = await appendLayer({
      from: registryFor(source, credentials),
      fromRepository: source.repository,
      reference: digest,
      architecture: container.architecture,
      to: registryFor(ref, credentials),
      toRepository: ref.repository,
      ...(ref.tag ? { tag: ref.tag } : {}),
      ...(sameRegistry && source.repository !== ref.repository ? { mountFrom: source.repository } : {}),
      layer: layerBlob(layer),
      createdBy: `sandflow builder: ${changes.length} change(s) from ${container.image}`,
    });
    return {
      reference: `${normalizeReference(target.reference.trim())}@${result.digest}`,
      digest: result.digest,
      layer: { digest: layer.digest, size: layer.size },
    };
  } catch (error) {
    if (error instanceof BuilderError || error instanceof ImageError) throw error;
    throw new Error(`builder ${id}: saving to ${target.reference} failed: ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    await removeTree(work);
  }
}

/** The changed paths (and their folders) out of the container into `root`; their owners. */
async function fetchChanges({ id, run }: BuilderAt, changes: RootChange[], root: string) {
  const wanted = tarPaths(changes);
  if (wanted.length === 0) return new Map<string, [number, number]>();
  const extract = tar.extract();
  const stop = new AbortController();
  const extracting = extractInto(extract, root, new Set(wanted)).catch((error: unknown) => {
    stop.abort(error);
    throw error;
  });
  const sent = run(TAR_OUT_SCRIPT, [], {
    stdin: Readable.from([Buffer.from(`${wanted.join('\0')}\0`)]),
    stdout: extract,
    signal: stop.signal,
  }).finally(() => extract.end(undefined));
  const [tarred, extracted] = await Promise.allSettled([sent, extracting]);
  if (extracted.status === 'rejected') throw extracted.reason;
  if (tarred.status === 'rejected') throw tarred.reason;
  if (tarred.value.exitCode !== 0)
    throw new Error(
      `builder ${id}: tar of its changes exited ${tarred.value.exitCode} (a file changed during the save?): ${tarred.value.stderr.trim()}`,
    );
  const missing = wanted.filter((p) => !extracted.value.seen.has(p));
  if (missing.length > 0)
    throw new Error(
      `builder ${id}: ${missing
        .slice(0, 5)
        .map((p) => `/${p}`)
        .join(', ')} changed during the save`,
    );
  return extracted.value.owners;
}
