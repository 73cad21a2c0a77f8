import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLines, tailOffset } from './log-file.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileWith = (text: string) => {
  const file = path.join(dir, `${n++}.log`);
  fs.writeFileSync(file, text);
  return file;
};
const tailOf = async (text: string, lines: number) => {
  const file = fileWith(text);
  const out: string[] = [];
  for await (const batch of readLines(file, await tailOffset(file, lines))) out.push(...batch);
  return out;
};
// Lines longer than the 64 KiB block, so the backwards scan crosses blocks mid-line.
const long = (c: string) => c.repeat(70_000);

describe('tailOffset + readLines', () => {
  it.each([
    ['an empty file', '', 3, []],
    ['fewer lines than asked', 'a\nb\n', 5, ['a', 'b']],
    ['a trailing newline', 'a\nb\nc\n', 2, ['b', 'c']],
    ['no trailing newline', 'a\nb\nc', 2, ['b', 'c']],
    ['zero lines', 'a\nb\n', 0, []],
    ['empty lines count', 'a\n\n\nb\n', 3, ['', '', 'b']],
    ['lines across blocks', `${long('x')}\n${long('y')}\nz\n`, 2, [long('y'), 'z']],
  ])('%s', async (_case, text, lines, expected) => {
    expect(await tailOf(text, lines)).toEqual(expected);
  });

  it('follows appended lines while live, then ends', async () => {
    const file = fileWith('one\n');
    let live = true;
    const seen: string[] = [];
    for await (const batch of readLines(file, 0, { live: async () => live, pollMs: 10 })) {
      seen.push(...batch);
      if (seen.length === 1) fs.appendFileSync(file, 'two\nthree');
      if (seen.length === 2) live = false;
    }
    expect(seen).toEqual(['one', 'two', 'three']);
  });
});
