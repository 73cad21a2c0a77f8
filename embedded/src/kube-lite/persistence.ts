import type { Knex } from 'knex';
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

  constructor(private readonly db: Knex) {}

  async migrate(): Promise<void> {
    await migrateKubeLite(this.db);
  }

  async load(): Promise<{ objects: PersistedObject[]; resourceVersion: number }> {
    const rows = await this.db(OBJECTS).select('resource', 'namespace', 'name', 'body').orderBy('rv');
    const state = await this.db(STATE).where({ key: 'resourceVersion' }).first();
    return {
      objects: rows.map((r: { resource: string; namespace: string; name: string; body: unknown }) => ({
        resource: r.resource,
        namespace: r.namespace,
        name: r.name,
        body: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as KubeObject,
      })),
      resourceVersion: state ? Number(state.value) : 0,
    };
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
        bindings.push(r.key, r.resource, r.namespace, r.name, r.rv, JSON.stringify(r.body));
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
