// The sandbox page's containers: started from an image (or a saved sandbox) by the builder,
// owned by whoever started them in their current organization; nobody else can see them.
import { posix } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import {
  BuilderError,
  type Architecture,
  type Builder,
  type BuilderContainer,
  type BuilderShell,
} from '@sandflow/images';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { badRequest, notFound, tooLarge, unavailable } from '../errors.js';
import type { Caller } from './callers.js';
import { imageFailure, type ImageService } from './images.js';
import type { ReplicaBus } from './replica-bus.js';
import { createTerminalPresence } from './terminal-presence.js';

/** Said the same in both modes: the API does not know which one it runs in. */
export const BUILDER_MISSING =
  'The sandbox builder is not available here: on one machine it needs bubblewrap (bwrap); on a cluster it is turned off (builder.enabled)';

/** The UID a person gets when no membership row names one (spec 1 §9: the client's default). */
const DEFAULT_UID = 1000;

/**
 * A saved sandbox as the caller may see it (services/sandboxes.ts: 404 unless they may view it),
 * in the API's JSON: its committed `image_ref`, else its `source_image`.
 */
export type SandboxReader = (
  caller: Caller,
  id: string,
) => Promise<{
  image_ref?: string;
  source_image?: { image: string; version?: string };
  architecture?: string;
}>;

/** A file name as sent by the page: one path component, no NUL, not `.` or `..`. */
export function checkFileName(name: string, field: string): string {
  if (name.includes('\0')) throw badRequest(`${field}: contains a NUL byte`, 'invalid_name');
  const base = name.trim();
  if (!base || base === '.' || base === '..' || base.includes('/'))
    throw badRequest(`${field}: must be a file name without / (got "${name}")`, 'invalid_name');
  if (Buffer.byteLength(base) > 255) throw badRequest(`${field}: longer than 255 bytes`, 'invalid_name');
  return base;
}

/** A folder inside the container: absolute or relative to its workdir, never with `..`. */
export function checkFolder(path: string, field: string): string {
  if (path.includes('\0')) throw badRequest(`${field}: contains a NUL byte`, 'invalid_path');
  if (path.split('/').includes('..')) throw badRequest(`${field}: may not contain ..`, 'invalid_path');
  if (path.length > 4096) throw badRequest(`${field}: longer than 4096 characters`, 'invalid_path');
  return path;
}

/** Spec 1 §9: the terminal is 160 columns by 46 rows unless the page says otherwise. */
export const DEFAULT_TERMINAL_SIZE = { cols: 160, rows: 46 };

/**
 * How often a replica tells the others which containers it has terminals open on (cluster
 * mode), from the grace period: a quarter of it, between 250 ms and 10 s. A replica not heard
 * for three heartbeats is taken for dead.
 */
export function terminalHeartbeatMs(graceMs: number): number {
  return Math.min(10_000, Math.max(250, Math.floor(graceMs / 4)));
}

/** What replicas tell each other about terminals on the bus's `terminals` topic. */
type TerminalMessage =
  { kind: 'opened' | 'closed' | 'stopped'; container: string } | { kind: 'heartbeat'; open: string[] };

function terminalMessage(data: unknown): TerminalMessage | undefined {
  const m = data as Partial<{ kind: string; container: unknown; open: unknown }> | null;
  if (!m || typeof m !== 'object') return undefined;
  if (m.kind === 'heartbeat')
    return Array.isArray(m.open) && m.open.every((c) => typeof c === 'string')
      ? { kind: 'heartbeat', open: m.open as string[] }
      : undefined;
  if ((m.kind === 'opened' || m.kind === 'closed' || m.kind === 'stopped') && typeof m.container === 'string')
    return { kind: m.kind, container: m.container };
  return undefined;
}

export function createContainerService(deps: {
  db: Knex;
  builder: Builder | undefined;
  images: ImageService;
  sandboxes: SandboxReader;
  /** How long a container outlives its last terminal socket (a reload reconnects within it). */
  graceMs: number;
  logger: Logger;
  /**
   * The API processes' bus. When shared (PostgreSQL: cluster mode, several replicas see the
   * same builder containers) terminals opened and closed are announced on it and the grace
   * rule holds across replicas; otherwise (one process) it is kept here alone.
   */
  bus?: ReplicaBus;
  /** Heartbeat interval on the bus (default terminalHeartbeatMs(graceMs)); expiry is three. */
  heartbeatMs?: number;
}) {
  const { db, images, sandboxes } = deps;
  /** Open terminal shells, the last size the page asked for, and pending stops, by container. */
  const shells = new Map<string, Set<BuilderShell>>();
  const sizes = new Map<string, { cols: number; rows: number }>();
  const stopping = new Map<string, NodeJS.Timeout>();
  const bus = deps.bus?.shared && deps.builder ? deps.bus : undefined;
  const heartbeatMs = deps.heartbeatMs ?? terminalHeartbeatMs(deps.graceMs);
  const expiryMs = 3 * heartbeatMs;
  const presence = bus
    ? createTerminalPresence({ self: bus.origin, graceMs: deps.graceMs, expiryMs })
    : undefined;
  let closed = false;

  function forget(id: string) {
    clearTimeout(stopping.get(id));
    stopping.delete(id);
    sizes.delete(id);
    for (const shell of shells.get(id) ?? []) shell.close();
    shells.delete(id);
    presence?.forget(id);
  }

  function builder(): Builder {
    if (!deps.builder) throw unavailable('builder_unavailable', BUILDER_MISSING);
    return deps.builder;
  }

  function organizationOf(caller: Caller): string {
    if (!caller.currentOrganizationId)
      throw badRequest('organization: join an organization to build sandboxes', 'no_organization');
    return caller.currentOrganizationId;
  }

  /** The caller's own container; anyone else's (or an unknown id) is the same 404. */
  function owned(caller: Caller, id: string): BuilderContainer {
    const found = builder().get(id);
    if (!found || found.owner !== caller.userId || found.organization !== caller.currentOrganizationId)
      throw notFound('Container');
    return found;
  }

  /** Spec 1: the UID is the person's; the GID their group's (the one given or their first). */
  async function idsOf(caller: Caller, organizationId: string, groupId?: string) {
    const member = await db('organization_members')
      .where({ organization_id: organizationId, user_id: caller.userId })
      .first('uid');
    const uid = (member?.uid as number | undefined) ?? DEFAULT_UID;
    const group = await db('groups')
      .join('group_members', 'group_members.group_id', 'groups.id')
      .where({ 'groups.organization_id': organizationId, 'group_members.user_id': caller.userId })
      .modify((q) => void (groupId ? q.andWhere('groups.id', groupId) : q))
      .orderBy('groups.created_at')
      .first('groups.gid');
    if (groupId && !group) throw notFound('Group');
    // Without a group a person gets their own group id, as user private groups do.
    return { uid, gid: (group?.gid as number | undefined) ?? uid };
  }

  function stopAbandoned(id: string) {
    stopping.delete(id);
    sizes.delete(id);
    presence?.forget(id);
    // Another replica may have stopped it already (the builder's stop is idempotent anyway).
    if (!deps.builder?.get(id)) return;
    bus?.publish('terminals', { kind: 'stopped', container: id } satisfies TerminalMessage);
    deps.logger.info({ container: id }, 'stopping a container without a terminal for the grace period');
    builder()
      .stop(id)
      .catch((error: unknown) =>
        deps.logger.error({ err: error, container: id }, 'stopping an abandoned container failed'),
      );
  }

  /** Stops a container nobody has a terminal on once the grace period is over (unless one opens). */
  function stopLater(id: string) {
    if (presence) {
      presence.closed(bus!.origin, id, Date.now());
      bus!.publish('terminals', { kind: 'closed', container: id } satisfies TerminalMessage);
      return review(id);
    }
    clearTimeout(stopping.get(id));
    const timer = setTimeout(() => stopAbandoned(id), deps.graceMs);
    timer.unref();
    stopping.set(id, timer);
  }

  /**
   * Cluster mode: looks at a container again after news of it: stops it when nobody alive has
   * a terminal on it and its grace period is over, else sets a timer for when that may be.
   * A process that does not hear even its own heartbeats (its listening connection is down)
   * may have missed a terminal opened elsewhere: it stops nothing until it hears again.
   */
  function review(id: string) {
    if (!presence || closed) return;
    clearTimeout(stopping.get(id));
    stopping.delete(id);
    const now = Date.now();
    const decision = presence.decide(id, now);
    let at: number | undefined;
    if (decision.action === 'stop') {
      const deaf = now - bus!.lastHeard() > expiryMs;
      if (!deaf) return stopAbandoned(id);
      at = now + heartbeatMs;
    } else at = decision.action === 'wait' ? decision.stopAt : decision.recheckAt;
    if (at === undefined) return;
    const timer = setTimeout(() => review(id), Math.max(0, at - now));
    timer.unref();
    stopping.set(id, timer);
  }

  function heartbeat() {
    const open = [...shells].filter(([, set]) => set.size > 0).map(([id]) => id);
    bus?.publish('terminals', { kind: 'heartbeat', open } satisfies TerminalMessage);
  }

  let beating: NodeJS.Timeout | undefined;
  if (bus && presence) {
    bus.on('terminals', (data, origin) => {
      const message = terminalMessage(data);
      if (!message || closed) return;
      const now = Date.now();
      if (message.kind === 'heartbeat') {
        presence.heartbeat(origin, message.open, now);
        for (const id of presence.containers()) review(id);
        return;
      }
      const id = message.container;
      if (message.kind === 'stopped') {
        clearTimeout(stopping.get(id));
        stopping.delete(id);
        sizes.delete(id);
        presence.forget(id);
        return;
      }
      if (message.kind === 'opened') presence.opened(origin, id, now);
      else presence.closed(origin, id, now);
      review(id);
    });
    // Lost messages are made up for by the next heartbeats; tell ours at once.
    bus.onResync(heartbeat);
    beating = setInterval(heartbeat, heartbeatMs);
    beating.unref();
    heartbeat();
  }

  // At start: containers already there (a replica that crashed, or this process before a
  // restart) with no terminal anywhere stop after the grace period like any other. In cluster
  // mode after grace + expiry: time enough to hear from replicas that have a terminal on one.
  const sweep = () => {
    if (closed) return;
    for (const container of deps.builder?.list() ?? []) {
      if (shells.get(container.id)?.size || stopping.has(container.id)) continue;
      if (presence) {
        if (presence.containers().includes(container.id)) continue;
        presence.seen(container.id, Date.now());
        review(container.id);
      } else stopLater(container.id);
    }
  };
  // The cluster builder lists from a watch of its Pods: only once that has listed them all.
  const synced = (deps.builder as { synced?: Promise<void> } | undefined)?.synced;
  if (synced)
    synced.then(sweep, (error: unknown) =>
      deps.logger.error({ err: error }, 'builder containers at start not listed'),
    );
  else sweep();

  async function startImage(caller: Caller, reference: string, architecture: Architecture, groupId?: string) {
    const organization = organizationOf(caller);
    const { uid, gid } = await idsOf(caller, organization, groupId);
    let container: BuilderContainer;
    try {
      container = await builder().start({
        image: reference,
        architecture,
        uid,
        gid,
        owner: caller.userId,
        organization,
      });
    } catch (error) {
      throw imageFailure(error, reference);
    }
    // A page that never opens its terminal (closed right after Create) leaves nothing behind.
    stopLater(container.id);
    return container;
  }

  return {
    available: () => deps.builder !== undefined,
    owned,

    /** Stops the timers (the containers stay); for closeServices. */
    close() {
      closed = true;
      clearInterval(beating);
      for (const timer of stopping.values()) clearTimeout(timer);
      stopping.clear();
    },

    async start(
      caller: Caller,
      input: {
        source_image: string;
        source_version: string;
        name: string;
        architecture?: Architecture;
        group?: string;
      },
    ) {
      builder();
      const { reference } = await images.resolve(
        organizationOf(caller),
        input.source_image,
        input.source_version,
      );
      return startImage(caller, reference, input.architecture ?? 'amd64', input.group);
    },

    /** Starts from a saved sandbox: its committed image, else the image it was made from. */
    async startFromSandbox(caller: Caller, sandboxId: string) {
      builder();
      const organizationId = organizationOf(caller);
      const sandbox = await sandboxes(caller, sandboxId);
      const source = sandbox.source_image;
      const reference =
        sandbox.image_ref ||
        (source?.image ? (await images.resolve(organizationId, source.image, source.version)).reference : '');
      if (!reference) throw badRequest(`sandbox ${sandboxId} has no image`, 'no_image');
      return startImage(caller, reference, sandbox.architecture === 'arm' ? 'arm' : 'amd64');
    },

    /** Stops the caller's container; an unknown or foreign id is a 404. */
    async stop(caller: Caller, id: string) {
      owned(caller, id);
      forget(id);
      bus?.publish('terminals', { kind: 'stopped', container: id } satisfies TerminalMessage);
      await builder().stop(id);
    },

    /** A shell for a terminal socket; the container's pending stop (if any) is called off. */
    async openShell(caller: Caller, id: string, size?: { cols: number; rows: number }) {
      owned(caller, id);
      clearTimeout(stopping.get(id));
      stopping.delete(id);
      // Cluster mode: in use from now on, here and for the other replicas (a heartbeat or a
      // timer running while the shell starts must not stop it).
      const first = presence !== undefined && !shells.get(id)?.size;
      if (first) {
        presence.opened(bus!.origin, id, Date.now());
        bus!.publish('terminals', { kind: 'opened', container: id } satisfies TerminalMessage);
      }
      let shell: BuilderShell;
      try {
        shell = await builder().shell(id, size ?? sizes.get(id) ?? DEFAULT_TERMINAL_SIZE);
      } catch (error) {
        if (first && !shells.get(id)?.size) stopLater(id);
        throw imageFailure(error, id);
      }
      let open = shells.get(id);
      if (!open) shells.set(id, (open = new Set()));
      open.add(shell);
      return shell;
    },

    /** A terminal socket went away: with its last one gone the container stops after the grace period. */
    closeShell(id: string, shell: BuilderShell) {
      shell.close();
      const open = shells.get(id);
      open?.delete(shell);
      if (open?.size) return;
      shells.delete(id);
      stopLater(id);
    },

    /** POST /terminal: the page's terminal size, applied to its open shells and the next ones. */
    resize(caller: Caller, id: string, size: { cols: number; rows: number }) {
      owned(caller, id);
      sizes.set(id, size);
      for (const shell of shells.get(id) ?? []) shell.resize(size.cols, size.rows);
    },

    async exists(caller: Caller, id: string, path: string) {
      owned(caller, id);
      return builder()
        .exists(id, path)
        .catch((error: unknown) => Promise.reject(imageFailure(error, id)));
    },

    /**
     * Streams an upload into the container. Bytes past `maxBytes` fail the write with a 413
     * naming the limit; the partial file is the builder's to discard.
     */
    async upload(caller: Caller, id: string, path: string, content: Readable, maxBytes: number) {
      owned(caller, id);
      const limited = new LimitStream(maxBytes);
      content.on('error', (error) => limited.destroy(error));
      try {
        return await builder().writeFile(id, path, content.pipe(limited), { maxBytes });
      } catch (error) {
        if (limited.over || (error instanceof BuilderError && error.code === 'TOO_LARGE'))
          throw Object.assign(tooLarge(`file: larger than the upload limit of ${formatBytes(maxBytes)}`), {
            cause: error,
          });
        throw imageFailure(error, id);
      }
    },

    /**
     * Save: the container's changes as one layer on its source image, pushed to the
     * organization's registry (else the platform default, else the local store).
     */
    async commit(
      caller: Caller,
      containerId: string,
      target: { organization: string; name: string; version: string },
    ): Promise<{ reference: string; digest: string }> {
      const container = owned(caller, containerId);
      if (container.organization !== target.organization) throw notFound('Container');
      const { reference } = await images.commitTarget(target.organization, target.name, target.version);
      try {
        const result = await builder().commit(containerId, { reference });
        return { reference: result.reference, digest: result.digest };
      } catch (error) {
        throw imageFailure(error, reference);
      }
    },
  };
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}

/** Passes bytes through until more than `maxBytes` came, then fails (and remembers why). */
class LimitStream extends Transform {
  over = false;
  private size = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.over = true;
      done(new Error(`upload over ${this.maxBytes} bytes`));
      return;
    }
    done(null, chunk);
  }
}

/** The target of an upload: the file name (sanitised) in the given folder or the workdir. */
export function uploadPath(folder: string | undefined, fileName: string): string {
  const name = checkFileName(fileName.split(/[\\/]/).pop() ?? '', 'file');
  return folder ? posix.join(checkFolder(folder, 'path'), name) : name;
}

export type ContainerService = ReturnType<typeof createContainerService>;
