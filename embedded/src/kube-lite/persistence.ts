import { isSealed } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { AtRestTransform, type KubeLiteEncryption, type StoredBody } from './encryption.js';
import { migrateKubeLite } from './migrate.js';
import type { KubeObject } from './types.js';

const OBJECTS = 'kube_objects';
const STATE = 'kube_state';
/** Rows of one statement (PostgreSQL allows 65,535 bind parameters; a row takes 6). */
const CHUNK = 1000;

export interface PersistedObject {
  resource: string;
  namespace: string;
  name: string;
  body: KubeObject;
}

export interface PendingRow {
  key: string;
  resource: string;
  namespace: string;
  name: string;
  rv: number;
  body: KubeObject | null;
}

/** What load() rewrote at start (Secrets encrypted at rest, encryption.ts). */
export interface RewriteCounts {
  /** Secrets stored in clear (before a key was given) now encrypted. */
  encrypted: number;
  /** Secrets under the previous key now encrypted under the current one. */
  reencrypted: number;
}

/**
 * kube-lite's durable state in Postgres. Writes are group-committed: every write of
 * one event-loop turn lands in one transaction, and each caller's promise resolves
 * once its row is committed (as kube-apiserver answers after etcd has the write), or
 * rejects when the transaction failed (then none of its rows was written).
 */
export class Persistence {
  private pending = new Map<string, PendingRow>();
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private latestRv = 0;

  private readonly transform: AtRestTransform;

  private readonly log: Logger | undefined;

  /** With `encryption`, Secrets are stored encrypted (encryption.ts); without, as they are. */
  constructor(
    private readonly db: Knex,
    options: { encryption?: KubeLiteEncryption | undefined; log?: Logger | undefined } = {},
  ) {
    this.transform = new AtRestTransform(options.encryption);
    this.log = options.log;
  }

  async migrate(): Promise<void> {
    await migrateKubeLite(this.db);
  }

  /**
   * Every stored object, decrypted. Secrets stored in clear or under the previous key are
   * rewritten under the current key first (each row once per start, in chunks, only while it
   * still holds what was read: idempotent); a row no key opens stops the start
   * (UnreadableObjectError names it) rather than serve a corrupt or missing object.
   */
  async load(): Promise<{ objects: PersistedObject[]; resourceVersion: number; rewritten: RewriteCounts }> {
    const rows: {
      key: string;
      resource: string;
      namespace: string;
      name: string;
      rv: string | number;
      body: unknown;
    }[] = await this.db(OBJECTS).select('key', 'resource', 'namespace', 'name', 'rv', 'body').orderBy('rv');
    const state = await this.db(STATE).where({ key: 'resourceVersion' }).first();
    const stale: {
      key: string;
      rv: number;
      resource: string;
      body: KubeObject;
      kind: 'plain' | 'previous';
    }[] = [];
    const objects = rows.map((r) => {
      const { body, stale: kind } = this.transform.fromStored(
        r.key,
        r.resource,
        r.namespace,
        r.name,
        parseBody(r.body),
      );
      if (kind) stale.push({ key: r.key, rv: Number(r.rv), resource: r.resource, body, kind });
      return { resource: r.resource, namespace: r.namespace, name: r.name, body };
    });
    const rewritten: RewriteCounts = { encrypted: 0, reencrypted: 0 };
    for (let i = 0; i < stale.length; i += CHUNK) {
      const chunk = stale.slice(i, i + CHUNK);
      await this.db.transaction(async (trx) => {
        for (const row of chunk) {
          const body = JSON.stringify(this.transform.toStored(row.key, row.resource, row.body));
          const updated = await trx(OBJECTS)
            .where({ key: row.key, rv: row.rv })
            .update({ body: trx.raw('?::jsonb', [body]) });
          if (updated > 0) rewritten[row.kind === 'plain' ? 'encrypted' : 'reencrypted']++;
        }
      });
    }
    if (this.transform.encrypts)
      this.log?.info(
        { ...rewritten, stale: stale.length },
        'secrets encrypted at rest: rows in clear or under the previous key rewritten under the current key',
      );
    return { objects, resourceVersion: state ? Number(state.value) : 0, rewritten };
  }

  /** Queue a write (body) or a removal (null); resolves once committed. */
  write(
    resource: string,
    namespace: string,
    name: string,
    rv: number,
    body: KubeObject | null,
  ): Promise<void> {
    const key = `${resource}|${namespace}|${name}`;
    this.pending.set(key, { key, resource, namespace, name, rv, body });
    if (rv > this.latestRv) this.latestRv = rv;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.flushing) this.flushing = new Promise((r) => setTimeout(r, 2)).then(() => this.flush());
    return done;
  }

  private async flush(): Promise<void> {
    while (this.pending.size > 0) {
      const rows = [...this.pending.values()];
      const waiters = this.waiters;
      this.pending = new Map();
      this.waiters = [];
      const rv = this.latestRv;
      try {
        await this.commitBatch(rows, rv);
        for (const w of waiters) w.resolve();
      } catch (e) {
        const error = new Error('kube-lite could not persist a write', { cause: e });
        for (const w of waiters) w.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /**
   * One statement per batch (an implicit transaction): upserts, removals and the
   * resourceVersion counter together, so a group commit costs one round trip. A batch of more
   * than CHUNK rows takes several statements, in one transaction: a batch is committed whole or
   * not at all, since every write in it is answered as failed when the commit fails.
   */
  protected async commitBatch(rows: PendingRow[], rv: number): Promise<void> {
    if (rows.length <= CHUNK) return this.commitChunk(this.db, rows, rv);
    await this.db.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK) await this.commitChunk(trx, rows.slice(i, i + CHUNK), rv);
    });
  }

  private async commitChunk(db: Knex, chunk: PendingRow[], rv: number): Promise<void> {
    const upserts = chunk.filter((r) => r.body !== null);
    const removals = chunk.filter((r) => r.body === null).map((r) => r.key);
    const bindings: unknown[] = [];
    const parts: string[] = [];
    if (upserts.length) {
      const values = upserts.map((r) => {
        const stored = this.transform.toStored(r.key, r.resource, r.body!);
        bindings.push(r.key, r.resource, r.namespace, r.name, r.rv, JSON.stringify(stored));
        return '(?, ?, ?, ?, ?, ?::jsonb)';
      });
      parts.push(
        `upserted as (insert into ${OBJECTS} (key, resource, namespace, name, rv, body) values ${values.join(', ')} ` +
          'on conflict (key) do update set rv = excluded.rv, body = excluded.body returning 1)',
      );
    }
    if (removals.length) {
      bindings.push(removals);
      parts.push(`removed as (delete from ${OBJECTS} where key = any(?) returning 1)`);
    }
    bindings.push(String(rv));
    const withClause = parts.length ? `with ${parts.join(', ')} ` : '';
    await db.raw(
      `${withClause}insert into ${STATE} (key, value) values ('resourceVersion', ?) on conflict (key) do update set value = excluded.value`,
      bindings as never,
    );
  }

  /** Wait for every queued write (used on shutdown). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}

/**
 * A jsonb value as the driver gives it: parsed (pg, PGlite), or its text. An envelope is a JSON
 * string, so a parsed one is a string starting with the envelope prefix.
 */
function parseBody(value: unknown): StoredBody {
  if (typeof value !== 'string') return value as KubeObject;
  if (isSealed(value)) return value;
  return JSON.parse(value) as StoredBody;
}
