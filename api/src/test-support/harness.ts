import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import supertest from 'supertest';
import { createApp } from '../app.js';
import { answerClientErrors } from '../http/client-errors.js';
import { defaultApiConfig, type ApiConfig } from '../config.js';
import { attachRealtime } from '../realtime.js';
import { attachTerminal } from '../terminal.js';
import { closeServices, servicesFor, type ApiDeps } from '../services/index.js';
import type { KubeTenancy } from '../services/kube-tenancy.js';
import { createMailer } from '../services/mailer.js';
import { createTestDatabase, destroyTestDatabase, openReplicaDatabase } from './database.js';

export interface Harness {
  db: Knex;
  deps: ApiDeps;
  request: ReturnType<typeof supertest>;
  /** A bearer access token for the user, in the given current organization. */
  tokenFor(userId: string, organizationId?: string | null): Promise<string>;
  /** Empties every API table (between tests of one file; the schema stays). */
  reset(): Promise<void>;
  /** Starts a real server on 127.0.0.1 with the realtime and terminal sockets; returns its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The harness's SANDFLOW_SECRETS_KEY (a fixed test key): registry passwords can be saved. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

/** A recording KubeTenancy for tests that check what would reach Kubernetes. */
export function recordingKube(): KubeTenancy & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async syncOrganization(org) {
      calls.push(`org ${org.slug}`);
    },
    async syncGroup(org, group) {
      calls.push(
        `group ${org.slug}-${group.slug} ${group.quota.cpu}/${group.quota.memory}/${group.quota.disk}`,
      );
    },
    async deleteGroup(org, group) {
      calls.push(`delete group ${org.slug}-${group.slug}`);
    },
    async deleteOrganization(org) {
      calls.push(`delete org ${org.slug}`);
    },
  };
}

export async function createHarness(
  options: {
    config?: Partial<ApiConfig>;
    kube?: ApiDeps['kube'];
    clusterCapacity?: ApiDeps['clusterCapacity'];
    /** Another API process on the same PostgreSQL database as this harness (skip on PGlite). */
    replicaOf?: Harness;
    /** The sandbox builder and the image check's stores. */
    builder?: ApiDeps['builder'];
    images?: ApiDeps['images'];
  } = {},
): Promise<Harness> {
  const replicaDb = options.replicaOf ? openReplicaDatabase(options.replicaOf.db) : null;
  if (options.replicaOf && !replicaDb)
    throw new Error('replicas need PostgreSQL (SANDFLOW_TEST_DATABASE_URL)');
  const db = replicaDb ?? (await createTestDatabase());
  const config = defaultApiConfig({
    rateLimit: { windowMs: 60_000, perAccount: 1000, perAddress: 1000 },
    secrets: { key: TEST_SECRETS_KEY, previousKey: undefined },
    ...options.config,
  });
  const deps: ApiDeps = {
    db,
    kube: options.kube ?? null,
    logger: pino({ level: process.env.DBG ? 'debug' : 'silent' }),
    mailer: createMailer({ db, from: config.mailFrom }),
    config,
    checkAnswers: true,
    ...(options.clusterCapacity ? { clusterCapacity: options.clusterCapacity } : {}),
    ...(options.builder ? { builder: options.builder } : {}),
    ...(options.images ? { images: options.images } : {}),
  };
  const app = createApp(deps);
  let server: Server | undefined;
  let realtime: { close(): void } | undefined;
  let terminal: { close(): void } | undefined;
  return {
    db,
    deps,
    request: supertest(app),
    tokenFor: (userId, organizationId = null) =>
      servicesFor(deps).tokens.signAccessToken({ userId, organizationId }),
    async reset() {
      await resetDatabase(db);
      servicesFor(deps).invalidateCaches(); // rows written behind the services' back
    },
    async listen() {
      server = app.listen(0, '127.0.0.1');
      answerClientErrors(server);
      await new Promise((resolve) => server!.once('listening', resolve));
      realtime = attachRealtime(server, deps);
      terminal = attachTerminal(server, deps);
      return `127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      realtime?.close();
      terminal?.close();
      if (server) await new Promise((resolve) => server!.close(resolve));
      await closeServices(deps);
      if (replicaDb) await replicaDb.destroy();
      else await destroyTestDatabase(db);
    },
  };
}

const API_TABLES = [
  'users',
  'organizations',
  'invitations',
  'user_tokens',
  'refresh_tokens',
  'outbox',
  'platform_settings',
  'events',
  'notifications',
  'feedback',
  'rate_limits',
];

export async function resetDatabase(db: Knex): Promise<void> {
  await db.raw(`TRUNCATE ${API_TABLES.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
}

/** The last mail sent to an address, from the outbox. */
export async function lastMailTo(db: Knex, to: string) {
  return db('outbox').where({ to }).orderBy('id', 'desc').first();
}

/** The token at the end of the first link of a mail. */
export function tokenInMail(text: string): string {
  const match = /\/(?:verification|password)\/([\w-]+)|invite=([\w-]+)/.exec(text);
  if (!match) throw new Error(`no token in mail: ${text}`);
  return (match[1] ?? match[2])!;
}
