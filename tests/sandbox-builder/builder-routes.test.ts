// The sandbox page's builder routes against the real embedded builder: containers started from
// Debian's busybox in Alpha's registry, the terminal socket, uploads, ownership, Save's commit.
import { LayoutStore, RegistryStore, parseReference, resolveImage } from '@sandflow/images';
import { servicesFor } from '@sandflow/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SOURCE,
  builderMissing,
  openTerminal,
  startPlatform,
  terminalRefusal,
  type Platform,
} from './platform.js';
import path from 'node:path';

const missing = builderMissing();
if (missing) console.warn(`sandbox builder suite skipped: ${missing} not installed`);

const UPLOAD_LIMIT = 64 * 1024;
// Long enough for a test's requests between start and its terminal on a loaded machine.
const GRACE_MS = 3000;
let p: Platform;

beforeAll(async () => {
  if (missing) return;
  p = await startPlatform({ builder: { uploadMaxBytes: UPLOAD_LIMIT, terminalGraceMs: GRACE_MS } });
}, 120_000);
afterAll(() => p?.stop());

type Who = 'admin' | 'organization_admin' | 'group_admin' | 'user' | 'other_user' | 'beta_user';
const person = (who: Who) => {
  const w = p.world;
  return {
    admin: { user: w.superAdmin, org: w.a.org },
    organization_admin: { user: w.a.orgAdmin, org: w.a.org },
    group_admin: { user: w.a.groupAdmin, org: w.a.org },
    user: { user: w.a.user, org: w.a.org },
    other_user: { user: w.a.target, org: w.a.org },
    beta_user: { user: w.b.user, org: w.b.org },
  }[who];
};
const tokenOf = (who: Who) => p.token(person(who).user.id, person(who).org.id);
const auth = async (who: Who) => `Bearer ${await tokenOf(who)}`;

async function start(who: Who, body: object = { ...SOURCE, name: 'box' }): Promise<string> {
  const res = await p.request
    .post('/api/v0/image')
    .set('Authorization', await auth(who))
    .send(body);
  expect(res.body.error).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.result as string;
}

const upload = async (who: Who, id: string, name: string, content: Buffer, folder?: string) => {
  let req = p.request.put(`/api/v0/container/${id}/archive`).set('Authorization', await auth(who));
  if (folder) req = req.field('path', folder);
  return req.attach('file', content, name);
};
const exists = async (who: Who, id: string, name: string) =>
  p.request
    .post(`/api/v0/container/${id}/archive`)
    .set('Authorization', await auth(who))
    .send({ name });

const gone = async (id: string) => {
  for (let i = 0; i < 800 && p.builder.get(id); i++) await new Promise((r) => setTimeout(r, 25));
  return p.builder.get(id) === undefined;
};

describe.skipIf(!!missing)('the builder routes with the bwrap builder', () => {
  it.each(['admin', 'organization_admin', 'group_admin', 'user'] as const)(
    'as %s: start from the image, compute in the terminal, stop',
    async (who) => {
      const id = await start(who);
      const term = await openTerminal(p.base, id, await tokenOf(who));
      term.run('echo $((6*7))');
      await term.waitFor(/\r\n42\r\n/);
      term.run('id -u');
      const uid = (
        await p.deps
          .db('organization_members')
          .where({ user_id: person(who).user.id })
          .first('uid')
      )?.uid as number | undefined;
      await term.waitFor(new RegExp(`\\r\\n${uid ?? 1000}\\r\\n`));
      const stopped = await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth(who));
      expect(stopped.status).toBe(200);
      await term.closed;
      expect(p.builder.get(id)).toBeUndefined();
    },
  );

  it('runs the shells with the group GID given at start', async () => {
    const id = await start('user', { ...SOURCE, name: 'box', group: p.world.a.group.id });
    const term = await openTerminal(p.base, id, await tokenOf('user'));
    term.run('id -g');
    const { gid } = await p.deps.db('groups').where({ id: p.world.a.group.id }).first('gid');
    await term.waitFor(new RegExp(`\\r\\n${gid as number}\\r\\n`));
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it('uploads into the working folder or a given one; exists says so; the shell sees the file', async () => {
    const id = await start('user');
    expect((await exists('user', id, 'hello.txt')).body.result).toBe(false);
    const put = await upload('user', id, 'hello.txt', Buffer.from('hi from upload\n'));
    expect(put.body.error).toBeUndefined();
    expect(put.body.result).toEqual({ name: 'hello.txt', path: 'hello.txt', size: 15 });
    expect((await exists('user', id, 'hello.txt')).body.result).toBe(true);
    // A browser's full path is cut to the file name.
    const elsewhere = await upload('user', id, 'C:\\Users\\me\\data.csv', Buffer.from('a,b\n'), '/tmp/in');
    expect(elsewhere.body.result).toEqual({ name: 'data.csv', path: '/tmp/in/data.csv', size: 4 });
    const term = await openTerminal(p.base, id, await tokenOf('user'));
    term.run('cat hello.txt /tmp/in/data.csv');
    await term.waitFor(/hi from upload\r\na,b\r\n/);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it('refuses an upload over the limit with a 413 naming it, and leaves no file', async () => {
    const id = await start('user');
    const res = await upload('user', id, 'big.bin', Buffer.alloc(UPLOAD_LIMIT + 1, 1));
    expect(res.status).toBe(413);
    expect(res.body.error.message).toBe('file: larger than the upload limit of 64 KiB');
    expect((await exists('user', id, 'big.bin')).body.result).toBe(false);
    const fits = await upload('user', id, 'fits.bin', Buffer.alloc(UPLOAD_LIMIT, 1));
    expect(fits.body.result.size).toBe(UPLOAD_LIMIT);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it.each([
    ['a traversing name', '../../etc/passwd', 'name: must be a file name without /'],
    ['a NUL byte', 'a\0b', 'name: must not contain NUL'],
    ['a dot-dot name', '..', 'name: must be a file name'],
  ])('refuses %s in the existence check naming the field', async (_case, name, message) => {
    const id = await start('user');
    const res = await exists('user', id, name);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.message).toContain(message);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it('refuses an upload whose folder climbs out, naming the field', async () => {
    const id = await start('user');
    const res = await upload('user', id, 'x.txt', Buffer.from('x'), '/tmp/../../..');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('path: may not contain ..');
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it.each(['other_user', 'beta_user'] as const)(
    'hides a container from %s: every route and the socket are 404',
    async (who) => {
      const id = await start('user');
      const as = await auth(who);
      const answers = await Promise.all([
        exists(who, id, 'a.txt'),
        upload(who, id, 'a.txt', Buffer.from('x')),
        p.request.post('/api/v0/terminal').set('Authorization', as).send({ uuid: id, rows: 10, cols: 10 }),
        p.request.delete(`/api/v0/image/${id}`).set('Authorization', as),
        p.request.post(`/api/v0/image/${id}/delete`).set('Authorization', as),
      ]);
      expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404, 404]);
      expect(await terminalRefusal(p.base, id, await tokenOf(who))).toBe(404);
      const caller = await servicesFor(p.deps).loadCaller(person(who).user.id, person(who).org.id);
      await expect(
        servicesFor(p.deps).containers.commit(caller!, id, {
          organization: p.world.a.org.id,
          name: 'x',
          version: '1',
        }),
      ).rejects.toThrow('Container not found');
      expect(p.builder.get(id)).toBeDefined();
      await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
    },
  );

  it('resizes the open shells with POST /terminal', async () => {
    const id = await start('user');
    const term = await openTerminal(p.base, id, await tokenOf('user'));
    const res = await p.request
      .post('/api/v0/terminal')
      .set('Authorization', await auth('user'))
      .send({ uuid: id, rows: 40, cols: 132 });
    expect(res.body.result).toBe(true);
    term.run('stty size');
    await term.waitFor(/\r\n40 132\r\n/);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
  });

  it('stops a container once its last socket has been gone for the grace period', async () => {
    const id = await start('user');
    const first = await openTerminal(p.base, id, await tokenOf('user'));
    const second = await openTerminal(p.base, id, await tokenOf('user'));
    first.socket.close();
    await first.closed;
    second.run('echo still here');
    await second.waitFor(/\r\nstill here\r\n/);
    second.socket.close();
    expect(await gone(id)).toBe(true);
    const after = await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));
    expect(after.status).toBe(404);
  });

  it('stops a container nobody opened a terminal on once the grace period is over', async () => {
    const id = await start('user');
    expect(p.builder.get(id)).toBeDefined();
    expect(await gone(id)).toBe(true);
  });

  it('stops a container on the page-unload beacon (POST with a text/plain body)', async () => {
    const id = await start('user');
    const res = await p.request
      .post(`/api/v0/image/${id}/delete`)
      .set('Authorization', await auth('user'))
      .type('text/plain')
      .send('bye');
    expect(res.status).toBe(200);
    expect(p.builder.get(id)).toBeUndefined();
  });

  it("commits to the organization's registry as <registry>/<org-slug>/<name>:<version>@digest, pullable and startable", async () => {
    const id = await start('user');
    await upload('user', id, 'saved.txt', Buffer.from('kept by save\n'));
    const caller = await servicesFor(p.deps).loadCaller(p.world.a.user.id, p.world.a.org.id);
    const saved = await servicesFor(p.deps).containers.commit(caller!, id, {
      organization: p.world.a.org.id,
      name: 'My_Box',
      version: '1.0.0',
    });
    const slug = p.world.a.org.slug;
    expect(saved.reference).toBe(`${p.registry.host}/${slug}/my_box:1.0.0@${saved.digest}`);
    const pulled = await resolveImage(
      new RegistryStore({ host: p.registry.host }),
      `${slug}/my_box`,
      saved.digest,
      'amd64',
    ).catch(() =>
      resolveImage(new RegistryStore({ host: p.registry.host }), `${slug}/my_box`, saved.digest, 'arm'),
    );
    expect(pulled.digest).toBe(saved.digest);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('user'));

    const again = await start('user', {
      source_image: `${p.registry.host}/${slug}/my_box`,
      source_version: '1.0.0',
      name: 'again',
    });
    const term = await openTerminal(p.base, again, await tokenOf('user'));
    term.run('cat saved.txt');
    await term.waitFor(/\r\nkept by save\r\n/);
    await p.request.delete(`/api/v0/image/${again}`).set('Authorization', await auth('user'));
  });

  it('commits to the local store when no registry is configured, and starts from it', async () => {
    const id = await start('beta_user', {
      source_image: `${p.registry.host}/${SOURCE.source_image}`,
      source_version: SOURCE.source_version,
      name: 'box',
    });
    await upload('beta_user', id, 'local.txt', Buffer.from('local save\n'));
    const caller = await servicesFor(p.deps).loadCaller(p.world.b.user.id, p.world.b.org.id);
    const saved = await servicesFor(p.deps).containers.commit(caller!, id, {
      organization: p.world.b.org.id,
      name: 'box',
      version: '2',
    });
    const name = `sandflow.local/${p.world.b.org.slug}/box`;
    expect(saved.reference).toBe(`${name}:2@${saved.digest}`);
    const layout = new LayoutStore(path.join(p.dataDir, 'images'));
    expect(await layout.listTags(name)).toContain('2');
    expect(parseReference(saved.reference).digest).toBe(saved.digest);
    await p.request.delete(`/api/v0/image/${id}`).set('Authorization', await auth('beta_user'));

    const again = await start('beta_user', { source_image: name, source_version: '2', name: 'again' });
    const term = await openTerminal(p.base, again, await tokenOf('beta_user'));
    term.run('cat local.txt');
    await term.waitFor(/\r\nlocal save\r\n/);
    await p.request.delete(`/api/v0/image/${again}`).set('Authorization', await auth('beta_user'));
  });

  it('answers 404 naming an image the registry does not have, before any container starts', async () => {
    const before = p.builder.list().length;
    const res = await p.request
      .post('/api/v0/image')
      .set('Authorization', await auth('user'))
      .send({ source_image: 'team/nothing', source_version: '1', name: 'box' });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('team/nothing');
    expect(p.builder.list()).toHaveLength(before);
  });
});
