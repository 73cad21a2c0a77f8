// Tenant isolation probes (issue 19 part 2), generated from api/openapi.yaml so a new route is
// probed without editing this file. As each role of organization A (organization admin, group
// admin, plain member), every operation is called with organization B's ids, names and e-mails:
// in its path (each kind of object, then every one of B's ids in every path parameter), in its
// query and in its body. Every answer to A is searched for B's marker strings (ids, names,
// e-mails, the invitation token) it did not itself send; a request naming one of B's objects in
// its path is refused (never 2xx) with the same status and error code as the same request naming
// an object that does not exist, so the answer cannot tell A whether B's object exists; and B's
// database rows and Kubernetes objects are the same after each request as before. The realtime,
// terminal and run log sockets refuse A on B's objects and send A none of B's messages, and a
// member's access token used as a bearer token against kube-lite (raw HTTPS and kubectl) is
// refused.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { servicesFor, type Tenant } from '@sandflow/api/testing';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { JsonSchema } from '../fuzz/arbitraries.js';
import { destructiveLast, readOperations, type Operation } from '../fuzz/operations.js';
import { startTwoTenants, until, type TwoTenants } from '../support/two-tenants.js';

/** Answers outside 2xx/4xx that are documented behaviour of this platform (as in the fuzz suite). */
const EXPECTED_5XX = new Set(['builder_unavailable', 'registry_unreachable']);
const REQUEST_TIMEOUT_MS = 10_000;
const KUBECTL = '/usr/bin/kubectl';

type Kind =
  'organization' | 'group' | 'user' | 'email' | 'sandbox' | 'workflow' | 'session' | 'run' | 'cluster';

const ROLES = ['organization_admin', 'group_admin', 'user'] as const;
type Role = (typeof ROLES)[number];

/** Path parameters that are not ids of anything a tenant owns: names, file names, capability tokens. */
const NOT_AN_ID = /^(name|filename|token|secret)$/;

let t: TwoTenants;
let base: string;
let agent: ReturnType<typeof supertest>;
/** One value of each kind, for A (own) and B (foreign). */
let own: Record<Kind, string>;
let foreign: Record<Kind, string>;
/** Every id B owns (people, group, organization, objects, cluster manager). */
let foreignIds: string[];
/** Strings that name something of B's: none may reach A unless A sent it. */
let markers: { text: string; re: RegExp }[];
/** B's rows in the API database and kube-lite's, found by these (ids and B's namespace). */
let foreignRowPattern: string;

const figures = {
  operations: 0,
  probes: 0,
  requests: 0,
  byClass: {} as Record<string, number>,
  foreignPathRefused: 0,
  existenceTwins: 0,
  bodyProbes: 0,
  queryProbes: 0,
  listProbes: 0,
  socketProbes: 0,
  kubeProbes: 0,
};

/** Tables a timer writes (the per-minute cluster usage samples name B's cluster manager). */
const SAMPLED = new Set(['cluster_usage']);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function createCluster(tenant: Tenant): Promise<string> {
  const res = await agent
    .post('/api/v0/cluster')
    .set('Authorization', await t.auth(tenant.orgAdmin, tenant))
    .send({});
  if (res.status !== 201) throw new Error(`POST /cluster: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.id as string;
}

beforeAll(async () => {
  t = await startTwoTenants();
  base = await t.h.listen();
  agent = supertest(`http://${base}`);
  const { a, b } = t.w;
  const values = async (tenant: Tenant): Promise<Record<Kind, string>> => {
    const objects = t.objects.get(tenant)!;
    return {
      organization: tenant.org.id,
      group: tenant.group.id,
      user: tenant.target.id,
      email: tenant.target.email,
      sandbox: objects.sandbox,
      workflow: objects.workflow,
      session: objects.session,
      run: objects.run,
      cluster: await createCluster(tenant),
    };
  };
  own = await values(a);
  foreign = await values(b);
  const people = [b.orgAdmin, b.groupAdmin, b.user, b.target];
  const objects = t.objects.get(b)!;
  foreignIds = [
    b.org.id,
    b.group.id,
    ...people.map((p) => p.id),
    objects.sandbox,
    objects.workflow,
    objects.session,
    objects.run,
    foreign.cluster,
  ];
  const names = (await t.h
    .db('users')
    .whereIn(
      'id',
      people.map((p) => p.id),
    )
    .select('first_name', 'last_name')) as { first_name: string; last_name: string }[];
  const texts = [
    ...foreignIds,
    ...people.map((p) => p.email),
    objects.invitation,
    b.org.name,
    b.group.name,
    ...names.flatMap((n) => [n.first_name, n.last_name]),
    'beta_box',
    'beta pipeline',
    'beta nightly',
    'beta-ops@example.org',
    'beta-invitee@example.org',
    'beta-tag',
    'beta subject',
    'beta feedback',
    `sf-${b.org.slug}-`,
  ];
  // Whole words: "First12" is not "First1".
  markers = texts.map((text) => ({ text, re: new RegExp(`(?<![\\w-])${escape(text)}(?![\\w])`) }));
  foreignRowPattern = [...foreignIds, `sf-${b.org.slug}-`].map(escape).join('|');
  await settle();
}, 180_000);

afterAll(async () => {
  await t?.close();
  // The figures tests/README.md records.
  console.log(`isolation figures: ${JSON.stringify(figures)}`);
});

/**
 * A digest of B's rows, table by table, in the API's database and kube-lite's: every row whose
 * text names one of B's ids or B's namespaces.
 */
async function foreignDigest(): Promise<Record<string, string>> {
  const digest = async (db: typeof t.h.db) => {
    const tables = (await db.raw(
      `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    )) as { rows: { tablename: string }[] };
    const names = tables.rows.map((r) => r.tablename).filter((n) => !n.endsWith('_lock'));
    const sql = names
      .map(
        (n) =>
          `SELECT '${n}' AS t, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${n}" x WHERE x::text ~ ?`,
      )
      .join(' UNION ALL ');
    const rows = (await db.raw(
      sql,
      names.map(() => foreignRowPattern),
    )) as {
      rows: { t: string; h: string }[];
    };
    return rows.rows.filter((r) => !SAMPLED.has(r.t)).map((r) => [r.t, r.h] as const);
  };
  const [api, kube] = await Promise.all([digest(t.h.db), digest(t.kubeDb)]);
  return Object.fromEntries([
    ...api.map(([k, v]) => [`api.${k}`, v]),
    ...kube.map(([k, v]) => [`kube.${k}`, v]),
  ]);
}

/** After a write A was allowed, the watch brings its echoes in: wait until B's rows are still. */
async function settle() {
  let last = JSON.stringify(await foreignDigest());
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = JSON.stringify(await foreignDigest());
    if (now === last) return;
    last = now;
  }
}

function userOf(role: Role) {
  const { a } = t.w;
  return role === 'organization_admin' ? a.orgAdmin : role === 'group_admin' ? a.groupAdmin : a.user;
}

/** The kind of thing a parameter or body field names, from its name, else from the route. */
function kindFor(name: string, op: Operation, schema?: JsonSchema): Kind {
  const n = name.toLowerCase();
  if (schema?.format === 'email' || /mail|notifications|^to$/.test(n)) return 'email';
  if (/sandbox|src|container|image/.test(n)) return 'sandbox';
  if (/workflow/.test(n)) return 'workflow';
  if (/session/.test(n)) return 'session';
  if (/run/.test(n)) return 'run';
  if (/group/.test(n)) return 'group';
  if (/organi[sz]ation|^org/.test(n)) return 'organization';
  if (/cluster/.test(n)) return 'cluster';
  if (/user|member|admin/.test(n)) return 'user';
  const segment = op.path.split('/')[1] ?? '';
  const bySegment: Record<string, Kind> = {
    sandbox: 'sandbox',
    image: 'sandbox',
    container: 'sandbox',
    workflow: 'workflow',
    session: 'session',
    schedule: 'session',
    event: 'session',
    hooks: 'session',
    run: 'run',
    file: 'run',
    statistic: 'run',
    group: 'group',
    organizations: 'organization',
    cluster: 'cluster',
    user: 'user',
    invite: 'user',
  };
  return bySegment[segment] ?? 'sandbox';
}

const ID_FIELD =
  /(^|_)(u?uids?|ids?|src_id|workflows?|sandbox(es)?|sessions?|runs?|groups?|organi[sz]ations?|users?|members?|admins?|emails?|notifications|to|containers?|clusters?)($|_)/i;

/** A value of the schema that passes validation where it can, with every id-like field set to `value(kind)`. */
function bodyOf(
  schema: JsonSchema | undefined,
  op: Operation,
  value: (kind: Kind) => string,
  key = '',
  depth = 0,
): unknown {
  if (!schema || depth > 6) return undefined;
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const option =
      options.find((o) => o.type !== 'null' && o.type !== undefined && (o.format || o.type === 'string')) ??
      options.find((o) => o.type !== 'null') ??
      options[0];
    return bodyOf(option, op, value, key, depth + 1);
  }
  if (schema.allOf) return bodyOf(Object.assign({}, ...schema.allOf), op, value, key, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  const idLike = ID_FIELD.test(key) || schema.format === 'uuid' || schema.format === 'email';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries(schema.properties ?? {})) {
        if (!(schema.required ?? []).includes(k) && !ID_FIELD.test(k) && s.format !== 'uuid') continue;
        const v = bodyOf(s, op, value, k, depth + 1);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case 'array': {
      const item = bodyOf(schema.items, op, value, key, depth + 1);
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'string':
      if (idLike) return value(kindFor(key, op, schema));
      if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      return 'probe'.padEnd(schema.minLength ?? 0, 'x');
    case 'integer':
    case 'number':
      return schema.minimum ?? schema.exclusiveMinimum ?? 1;
    case 'boolean':
      return false;
    default:
      return idLike ? value(kindFor(key, op, schema)) : undefined;
  }
}

/** A value of the same form as `v` that names nothing. */
function missingLike(v: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return randomUUID();
  if (v.includes('@')) return `nobody-${randomUUID().slice(0, 8)}@example.org`;
  return v.replace(/[0-9a-f]/g, '0');
}

interface Probe {
  role: Role;
  params: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  /** The path names one of B's objects by id: the answer must be a refusal indistinguishable from a missing one. */
  foreignPath: boolean;
}

function urlOf(op: Operation, probe: Probe): string {
  const pathname = op.path.replace(/\{(\w+)\}/g, (_, n: string) =>
    encodeURIComponent(probe.params[n] ?? 'x'),
  );
  const query = new URLSearchParams(probe.query).toString();
  return `/api/v0${pathname}${query ? `?${query}` : ''}`;
}

async function send(op: Operation, probe: Probe) {
  let req = agent[op.method](urlOf(op, probe))
    .timeout({ deadline: REQUEST_TIMEOUT_MS })
    .set('Authorization', await t.auth(userOf(probe.role), t.w.a))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  if (probe.body !== undefined) req = req.type('application/json').send(JSON.stringify(probe.body));
  const res = await req;
  figures.requests++;
  const cls = `${String(res.status)[0]}xx`;
  figures.byClass[cls] = (figures.byClass[cls] ?? 0) + 1;
  const raw = (res.body as Buffer).toString('latin1');
  let json: { error?: { code?: string } } | undefined;
  try {
    json = JSON.parse((res.body as Buffer).toString('utf8'));
  } catch {
    json = undefined;
  }
  const headers = JSON.stringify(res.headers);
  return { status: res.status, json, text: `${raw}\n${headers}` };
}

function describeProbe(op: Operation, probe: Probe) {
  return `${op.method.toUpperCase()} ${urlOf(op, probe)} as A's ${probe.role}${
    probe.body === undefined ? '' : ` with ${JSON.stringify(probe.body).slice(0, 300)}`
  }`;
}

/** Runs one probe and checks what it may not do; answers the status. */
async function probe(op: Operation, p: Probe): Promise<void> {
  figures.probes++;
  const sent = `${urlOf(op, p)} ${JSON.stringify(p.body ?? '')}`;
  const before = await foreignDigest();
  const res = await send(op, p);
  if (process.env.ISOLATION_DEBUG)
    console.log(`probe ${res.status} ${res.json?.error?.code ?? ''} ${describeProbe(op, p).slice(0, 260)}`);
  const where = `${res.status} ${res.text.slice(0, 400)} for ${describeProbe(op, p)}`;
  const code = res.json?.error?.code;
  if (!(res.status >= 500 && code && EXPECTED_5XX.has(code)))
    expect(res.status, `a server error: ${where}`).toBeLessThan(500);
  // None of B's strings reaches A, but those A sent (an error may name the id it could not find).
  const leaked = markers.filter((m) => !sent.includes(m.text) && m.re.test(res.text)).map((m) => m.text);
  expect(leaked, `B's data in an answer to A: ${where}`).toEqual([]);
  if (p.foreignPath) {
    expect(res.status, `A reached B's object: ${where}`).toBeGreaterThanOrEqual(400);
    figures.foreignPathRefused++;
    // The same request on an object that does not exist: the same answer, so existence does not leak.
    const twin: Probe = {
      ...p,
      params: Object.fromEntries(
        Object.entries(p.params).map(([k, v]) => [k, foreignIds.includes(v) ? missingLike(v) : v]),
      ),
    };
    const missing = await send(op, twin);
    figures.existenceTwins++;
    expect(
      { status: res.status, code },
      `B's object answers unlike a missing one (${missing.status} ${missing.text.slice(0, 200)}): ${where}`,
    ).toEqual({ status: missing.status, code: missing.json?.error?.code });
  }
  if (res.status < 300 && op.method !== 'get') await settle();
  expect(await foreignDigest(), `B's rows changed: ${where}`).toEqual(before);
}

/** The probes of one operation as one role. */
function probesOf(op: Operation, role: Role): Probe[] {
  const out: Probe[] = [];
  const ids = op.pathParams.filter((p) => !NOT_AN_ID.test(p.name));
  const typed = (which: 'own' | 'foreign', name: string) =>
    (which === 'own' ? own : foreign)[kindFor(name, op, op.pathParams.find((p) => p.name === name)?.schema)];
  const ownParams = Object.fromEntries(op.pathParams.map((p) => [p.name, typed('own', p.name)]));
  const body = (value: (k: Kind) => string) =>
    op.method === 'get' || !op.body ? undefined : bodyOf(op.body, op, value);
  const idQuery = (value: (k: Kind) => string) =>
    Object.fromEntries(
      op.queryParams
        .filter((q) => ID_FIELD.test(q.name) || q.name === 'invite')
        .map((q) => [q.name, value(kindFor(q.name, op, q.schema))]),
    );
  const foreignValue = (k: Kind) => foreign[k];
  const ownValue = (k: Kind) => own[k];

  // 1. A's own objects (and no query): lists, searches and reads answer nothing of B's.
  out.push({ role, params: ownParams, query: {}, body: body(ownValue), foreignPath: false });
  if (ids.length) {
    // 2. Every path id B's, of the right kind; then each one alone among A's own.
    out.push({
      role,
      params: Object.fromEntries(op.pathParams.map((p) => [p.name, typed('foreign', p.name)])),
      query: {},
      body: body(ownValue),
      foreignPath: true,
    });
    if (ids.length > 1)
      for (const param of ids)
        out.push({
          role,
          params: { ...ownParams, [param.name]: typed('foreign', param.name) },
          query: {},
          body: body(ownValue),
          foreignPath: true,
        });
    // 3. Every id B has, whatever its kind, in every path id.
    for (const id of foreignIds)
      out.push({
        role,
        params: Object.fromEntries(op.pathParams.map((p) => [p.name, NOT_AN_ID.test(p.name) ? 'x' : id])),
        query: {},
        body: body(ownValue),
        foreignPath: true,
      });
  }
  // 4. B's ids and e-mails in the body (A's own ids in the path).
  if (op.method !== 'get' && op.body) {
    figures.bodyProbes++;
    out.push({ role, params: ownParams, query: {}, body: body(foreignValue), foreignPath: false });
  }
  // 5. B's ids in id-like query parameters; B's names in searches.
  if (op.queryParams.length) {
    figures.queryProbes++;
    const query = idQuery(foreignValue);
    if (Object.keys(query).length)
      out.push({ role, params: ownParams, query, body: body(ownValue), foreignPath: false });
    if (op.queryParams.some((q) => q.name === 'search'))
      for (const name of ['beta', 'Beta', foreign.email, foreign.sandbox])
        out.push({ role, params: ownParams, query: { search: name }, body: undefined, foreignPath: false });
  }
  return out;
}

/** Sign-out and token routes would end the session the probes use: their own suites cover them. */
const SKIPPED = new Set(['get /logout', 'put /password']);
const operations = readOperations()
  .filter((op) => !SKIPPED.has(`${op.method} ${op.path}`))
  .sort(destructiveLast);

describe.sequential('tenant isolation over every route of api/openapi.yaml', () => {
  it('reads the operations from the document', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain('get /sandbox/{uuid}');
  });

  it('the probes reach B’s objects: B’s owner reads them', async () => {
    for (const [kind, url] of [
      ['sandbox', `/api/v0/sandbox/${foreign.sandbox}`],
      ['workflow', `/api/v0/workflow/${foreign.workflow}`],
      ['run', `/api/v0/run/${foreign.run}`],
    ] as const) {
      const res = await agent.get(url).set('Authorization', await t.auth(t.w.b.target, t.w.b));
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(200);
      // The marker search finds B's strings where they are (so its silence in A's answers means something).
      expect(markers.filter((m) => m.re.test(JSON.stringify(res.body))).length, kind).toBeGreaterThan(1);
    }
  });

  it('B’s invitation token does not let A’s people into B', async () => {
    const token = t.objects.get(t.w.b)!.invitation;
    for (const role of ROLES) {
      const before = await foreignDigest();
      const res = await agent
        .get(`/api/v0/invite/${token}/accept`)
        .set('Authorization', await t.auth(userOf(role), t.w.a));
      figures.probes++;
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(await foreignDigest()).toEqual(before);
    }
  });

  it.each(operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    '%s',
    async (_key, op) => {
      figures.operations++;
      if (op.pathParams.length === 0 && op.method === 'get') figures.listProbes++;
      for (const role of ROLES) for (const p of probesOf(op, role)) await probe(op, p);
    },
    600_000,
  );
});

describe.sequential('sockets', () => {
  /** Opens a websocket; answers the refusal status, or the socket once open. */
  function connect(pathname: string, token: string) {
    return new Promise<{ status: number; body: string; socket?: WebSocket; messages: string[] }>(
      (resolve, reject) => {
        const messages: string[] = [];
        const socket = new WebSocket(`ws://${base}${pathname}`, {
          headers: { Authorization: `Bearer ${token}` },
        });
        socket.on('message', (data) => messages.push(String(data)));
        socket.on('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += String(c)));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, messages }));
        });
        socket.on('open', () => resolve({ status: 101, body: '', socket, messages }));
        socket.on('error', (error) => {
          if (!String(error.message).includes('Unexpected server response')) reject(error);
        });
      },
    );
  }
  /** A refusal's text with the id it names replaced, to compare B's object with a missing one. */
  const refusal = (r: { status: number; body: string }, id: string, twin: string) => ({
    status: r.status,
    body: r.body.split(id).join('ID').split(twin).join('ID'),
  });
  const tokenOf = async (role: Role) => (await t.auth(userOf(role), t.w.a)).slice('Bearer '.length);

  // Without bwrap there is no sandbox builder and no container to reach (a 503 for everyone): then
  // this proves only that B's ids answer as missing ones do; containers.test.ts has the owner check.
  it.each(ROLES)('the terminal socket refuses A’s %s on B’s ids as on missing ones', async (role) => {
    const token = await tokenOf(role);
    for (const id of foreignIds) {
      const twin = missingLike(id);
      const theirs = await connect(`/api/v0/log/${id}`, token);
      const missing = await connect(`/api/v0/log/${twin}`, token);
      figures.socketProbes += 2;
      expect(theirs.status, id).toBeGreaterThanOrEqual(400);
      expect(theirs.messages).toEqual([]);
      expect(refusal(theirs, id, twin)).toEqual(refusal(missing, id, twin));
    }
  });

  it.each(ROLES)('the run log socket refuses A’s %s on B’s run as on a missing one', async (role) => {
    const path = (run: string) => `/api/v0/log/${run}/n1/first`;
    // B's owner gets past the run check to the step's log (none here: no operator ran it).
    const b = await connect(path(foreign.run), (await t.auth(t.w.b.target, t.w.b)).slice(7));
    b.socket?.close();
    expect(b.body).not.toMatch(/Run not found/);
    const token = await tokenOf(role);
    for (const run of foreignIds) {
      const twin = missingLike(run);
      const theirs = await connect(path(run), token);
      const missing = await connect(path(twin), token);
      figures.socketProbes += 2;
      expect(theirs.status, run).toBe(404);
      expect(theirs.body).toMatch(/Run not found/);
      expect(theirs.messages).toEqual([]);
      expect(refusal(theirs, run, twin)).toEqual(refusal(missing, run, twin));
    }
  });

  it('the realtime socket sends A none of B’s notifications', async () => {
    const listeners = await Promise.all(
      ROLES.map(async (role) => connect('/api/v0/notifications', await tokenOf(role))),
    );
    const bTarget = await connect('/api/v0/notifications', (await t.auth(t.w.b.target, t.w.b)).slice(7));
    for (const l of [...listeners, bTarget]) expect(l.status).toBe(101);
    const notifications = servicesFor(t.h.deps).notifications;
    for (const userId of [t.w.b.target.id, t.w.b.orgAdmin.id, t.w.b.user.id])
      await notifications.notify({
        userId,
        organizationId: t.w.b.org.id,
        title: 'Group',
        type: 'primary',
        text: `You were added to the group ${t.w.b.group.name}`,
        data: { action: 'group', uuid: t.w.b.group.id },
      });
    await until(() => bTarget.messages.some((m) => m.includes(t.w.b.group.id)));
    // Anything on its way to the wrong socket would have arrived with B's own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    figures.socketProbes += listeners.length;
    for (const l of listeners) {
      const leaked = markers.filter((m) => l.messages.some((text) => m.re.test(text))).map((m) => m.text);
      expect(leaked).toEqual([]);
    }
    for (const l of [...listeners, bTarget]) l.socket!.close();
  });
});

describe('a member’s credentials never reach the Kubernetes API', () => {
  const ca = () => Buffer.from(t.kubeConfig.getCurrentCluster()!.caData!, 'base64');
  function kubeGet(pathname: string, token: string) {
    return new Promise<number>((resolve, reject) => {
      const req = https.get(
        new URL(pathname, t.kubeUrl),
        { ca: ca(), headers: { Authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
    });
  }
  const paths = (ns: string) => [
    '/api/v1/namespaces',
    `/api/v1/namespaces/${ns}/secrets`,
    `/apis/sandflow.io/v1alpha1/namespaces/${ns}/runs`,
    '/apis/sandflow.io/v1alpha1/clustermanagers',
  ];

  it('the platform’s own token is let in (the probe reaches the server)', async () => {
    expect(await kubeGet('/api/v1/namespaces', t.kubeToken)).toBe(200);
  });

  it.each([...ROLES, 'B target'] as const)('the access token of %s is refused (HTTPS)', async (who) => {
    const token =
      who === 'B target'
        ? (await t.auth(t.w.b.target, t.w.b)).slice(7)
        : (await t.auth(userOf(who), t.w.a)).slice(7);
    for (const ns of [`sf-${t.w.a.org.slug}-${t.w.a.group.slug}`, `sf-${t.w.b.org.slug}-${t.w.b.group.slug}`])
      for (const p of paths(ns)) {
        figures.kubeProbes++;
        expect([401, 403], p).toContain(await kubeGet(p, token));
      }
  });

  it('the session cookie of a signed-in member is refused (kubectl)', async () => {
    const login = await agent
      .post('/api/v0/login')
      .send({ username: t.w.a.user.email, password: 'Sandflow-1' });
    expect(login.status).toBe(200);
    const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? []);
    const access = cookies.map((c) => /^sf_access=([^;]+)/.exec(c)?.[1]).find(Boolean);
    expect(access).toBeTruthy();
    if (!fs.existsSync(KUBECTL)) {
      console.warn(`isolation: ${KUBECTL} is not installed; the HTTPS probes stand for kubectl`);
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-isolation-'));
    const kubeconfig = path.join(dir, 'config');
    fs.writeFileSync(path.join(dir, 'ca.crt'), ca());
    fs.writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: k, cluster: {server: "' + t.kubeUrl + '", certificate-authority: ca.crt}}]',
        'users: [{name: member, user: {token: "' + decodeURIComponent(access!) + '"}}]',
        'contexts: [{name: k, context: {cluster: k, user: member}}]',
        'current-context: k',
      ].join('\n'),
    );
    try {
      for (const args of [
        ['get', 'namespaces'],
        ['get', 'secrets', '-A'],
        ['get', 'runs.sandflow.io', '-A'],
      ]) {
        figures.kubeProbes++;
        const out = await promisify(execFile)(KUBECTL, [...args, '--request-timeout=10s'], {
          env: { ...process.env, KUBECONFIG: kubeconfig },
        }).then(
          () => 'allowed',
          (e: { stderr?: string }) => String(e.stderr),
        );
        expect(out, args.join(' ')).toMatch(/Unauthorized|Forbidden|must be logged in/i);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
