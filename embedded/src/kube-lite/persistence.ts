import type { Knex } from 'knex';
import type { KubeObject } from './types.js';

const OBJECTS = 'kube_objects';
const STATE = 'kube_state';

export interface PersistedObject {
  resource: string;
  namespace: string;
  name: string;
  body: KubeObject;
}

interface PendingRow {
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
 * once its row is committed (as kube-apiserver answers after etcd has the write).
 */
export class Persistence {
  private pending = new Map<string, PendingRow>();
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private latestRv = 0;

  constructor(private readonly db: Knex) {}

  async migrate(): Promise<void> {
    if (!(await this.db.schema.hasTable(OBJECTS))) {
      await this.db.schema.createTable(OBJECTS, (t) => {
        t.text('key').primary();
        t.text('resource').notNullable().index();
        t.text('namespace').notNullable();
        t.text('name').notNullable();
        t.bigInteger('rv').notNullable();
        t.jsonb('body').notNullable();
      });
    }
    if (!(await this.db.schema.hasTable(STATE))) {
      await this.db.schema.createTable(STATE, (t) => {
        t.text('key').primary();
        t.text('value').notNullable();
      });
    }
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
    if (!this.flushing) this.flushing = new Promise((r) => setImmediate(r)).then(() => this.flush());
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
        await this.db.transaction(async (trx) => {
          const upserts = rows.filter((r) => r.body !== null);
          const removals = rows.filter((r) => r.body === null).map((r) => r.key);
          for (let i = 0; i < upserts.length; i += 500) {
            await trx(OBJECTS)
              .insert(
                upserts.slice(i, i + 500).map((r) => ({
                  key: r.key,
                  resource: r.resource,
                  namespace: r.namespace,
                  name: r.name,
                  rv: r.rv,
                  body: JSON.stringify(r.body),
                })),
              )
              .onConflict('key')
              .merge();
          }
          for (let i = 0; i < removals.length; i += 500) {
            await trx(OBJECTS)
              .whereIn('key', removals.slice(i, i + 500))
              .delete();
          }
          await trx(STATE)
            .insert({ key: 'resourceVersion', value: String(rv) })
            .onConflict('key')
            .merge();
        });
        for (const w of waiters) w.resolve();
      } catch (e) {
        const error = new Error('kube-lite could not persist a write', { cause: e });
        for (const w of waiters) w.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** Wait for every queued write (used on shutdown). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
