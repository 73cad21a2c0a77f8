import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness.js';
import { REPOSITORY_ROOT, describeLicense, licenseHeading, readLicense } from './license.js';

const APACHE_HEAD = `
                                 Apache License
                           Version 2.0, January 2004
                        http://www.apache.org/licenses/
`;

describe('licenseHeading', () => {
  it.each([
    ['Apache: title and version line', APACHE_HEAD, 'Apache License 2.0'],
    ['MIT: one line', 'MIT License\n\nCopyright (c) 2026 Someone\n', 'MIT License'],
    [
      'GPL-3.0',
      '                    GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n',
      'GNU GENERAL PUBLIC LICENSE 3',
    ],
    [
      'a second line that is no version',
      'BSD Zero Clause License\n\nPermission to use',
      'BSD Zero Clause License',
    ],
    ['empty', '\n  \n', null],
  ])('%s', (_case, text, heading) => {
    expect(licenseHeading(text)).toBe(heading);
  });
});

describe('describeLicense', () => {
  it.each([
    [
      'SPDX id from package.json, name from LICENSE',
      { name: 'sandflow', version: '1.2.3', license: 'Apache-2.0' },
      APACHE_HEAD,
      {
        id: 'Apache-2.0',
        name: 'Apache License 2.0',
        url: 'https://spdx.org/licenses/Apache-2.0.html',
        product: 'sandflow',
        version: '1.2.3',
      },
    ],
    [
      'no LICENSE file: the id names it',
      { name: 'x', version: '0.1.0', license: 'MIT' },
      null,
      { id: 'MIT', name: 'MIT', url: 'https://spdx.org/licenses/MIT.html', text: null },
    ],
    [
      'no license field',
      { name: 'x', version: '0.1.0' },
      null,
      { id: 'UNLICENSED', name: 'UNLICENSED', url: '' },
    ],
    [
      'an SPDX expression has no single page',
      { version: '2.0.0', license: '(MIT OR Apache-2.0)' },
      null,
      { id: '(MIT OR Apache-2.0)', url: '', product: 'sandflow', version: '2.0.0' },
    ],
  ])('%s', (_case, pkg, text, expected) => {
    expect(describeLicense(pkg, text)).toMatchObject(expected);
  });
});

describe('readLicense', () => {
  it('reads package.json and LICENSE of a folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandflow-license-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'p', version: '9.9.9', license: 'MIT' }),
      );
      fs.writeFileSync(path.join(dir, 'LICENSE.md'), 'MIT License\n\nCopyright\n');
      expect(await readLicense(dir)).toEqual({
        id: 'MIT',
        name: 'MIT License',
        url: 'https://spdx.org/licenses/MIT.html',
        product: 'p',
        version: '9.9.9',
        text: 'MIT License\n\nCopyright\n',
      });
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});

describe('GET /illumina/license', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  }, 60_000);
  afterAll(() => h.close());

  it("answers this repository's license and version, without a session", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license: string;
    };
    const text = fs.readFileSync(path.join(REPOSITORY_ROOT, 'LICENSE'), 'utf8');
    const res = await h.request.get('/api/v0/illumina/license');
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      id: pkg.license,
      name: 'Apache License 2.0',
      url: `https://spdx.org/licenses/${pkg.license}.html`,
      product: pkg.name,
      version: pkg.version,
      text,
    });
    expect(pkg.license).toBe('Apache-2.0');
  });
});
