import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';
import { createWorld, type World } from '../test-support/world.js';

let h: Harness;
let w: World;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
beforeEach(async () => {
  await h.reset();
  w = await createWorld(h.db);
});
afterAll(() => h.close());

const upload = async (fileName: string, content: string | Buffer) =>
  h.request
    .post('/api/v0/parse/variables')
    .set('Authorization', `Bearer ${await h.tokenFor(w.a.user.id, w.a.org.id)}`)
    .attach('file', Buffer.from(content), fileName);

describe('POST /parse/variables', () => {
  it.each([
    [
      'csv rows',
      'v.csv',
      'A,1\nB,two words\n',
      [
        { name: 'A', value: '1' },
        { name: 'B', value: 'two words' },
      ],
    ],
    ['csv with a header and quotes', 'v.csv', 'name,value\nURL,"a,b"\n', [{ name: 'URL', value: 'a,b' }]],
    [
      'csv with a BOM and CRLF',
      'v.CSV',
      '\uFEFFA,1\r\nB,2\r\n',
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    ],
    [
      'json list',
      'v.json',
      '[{"name":"A","value":"1"},{"name":"B","value":2}]',
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    ],
    [
      'json map',
      'v.json',
      '{"A":"1","B":true}',
      [
        { name: 'A', value: '1' },
        { name: 'B', value: 'true' },
      ],
    ],
    ['yml list', 'v.yml', '- name: A\n  value: x y\n', [{ name: 'A', value: 'x y' }]],
    [
      'yaml map',
      'v.yaml',
      'A: 1\nB: ""\n',
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '' },
      ],
    ],
    ['empty csv', 'v.csv', '', []],
  ])('reads %s', async (_case, fileName, content, expected) => {
    const res = await upload(fileName, content);
    expect(res.body.error).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(expected);
  });

  it.each([
    ['another extension', 'v.txt', 'A,1', 'must be a .csv, .json or .yml file'],
    ['a row of three columns', 'v.csv', 'A,1\nB,2,3\n', 'line 2: expected name,value (got 3 columns)'],
    ['an unclosed quote', 'v.csv', 'A,"1\n', 'v.csv'],
    ['broken json', 'v.json', '{"A":', 'v.json'],
    ['a nested value', 'v.json', '{"A":{"b":1}}', 'key A: the value of A must be text'],
    ['a list item without a name', 'v.yml', '- value: 1\n', 'item 1: the name must be text'],
    ['a NUL byte', 'v.csv', 'A,x\0y\n', 'line 1: contains a NUL byte'],
    ['a scalar document', 'v.yml', '42\n', 'expected a list of {name, value} or a map'],
  ])('refuses %s with a 400 naming the problem', async (_case, fileName, content, message) => {
    const res = await upload(fileName, content);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(message);
  });

  it('refuses a body that is not multipart, and a form without a file', async () => {
    const token = `Bearer ${await h.tokenFor(w.a.user.id, w.a.org.id)}`;
    const json = await h.request.post('/api/v0/parse/variables').set('Authorization', token).send({ A: 1 });
    expect(json.status).toBe(400);
    expect(json.body.error.message).toContain('multipart/form-data');
    const noFile = await h.request
      .post('/api/v0/parse/variables')
      .set('Authorization', token)
      .field('x', '1');
    expect(noFile.status).toBe(400);
    expect(noFile.body.error.message).toContain('no file');
  });

  it('refuses a file over 1 MiB with a 413', async () => {
    const res = await upload('v.csv', Buffer.alloc(1024 * 1024 + 1, 'a'));
    expect(res.status).toBe(413);
    expect(res.body.error.message).toContain('1 MiB');
  });
});
