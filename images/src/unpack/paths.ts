// Path rules for layer entries. Every entry is placed by walking its parent folders inside the
// root one component at a time, so a symlink met on the way is followed with chroot semantics
// (an absolute target starts again at the root) and can never lead the write outside the root.
import fs from 'node:fs/promises';
import path from 'node:path';

export class UnsafeEntryError extends Error {}

/** The entry name as components: no leading `./`, no trailing `/`; absolute names and `..` refused. */
export function entryComponents(name: string): string[] {
  if (name.startsWith('/')) throw new UnsafeEntryError('absolute path');
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new UnsafeEntryError('path escapes the root through ".."');
  return parts;
}

/**
 * Lexically resolves a symlink target relative to the folder `dir` (components under the root);
 * refuses targets that climb above the root.
 */
export function symlinkTargetInside(dir: string[], target: string): string[] {
  const stack = target.startsWith('/') ? [] : [...dir];
  for (const p of target.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (stack.length === 0)
        throw new UnsafeEntryError(`symlink target "${target}" points outside the root`);
      stack.pop();
    } else stack.push(p);
  }
  return stack;
}

const MAX_LINKS = 40;

/**
 * The host folder for `dir` (components under `root`), creating missing folders; symlinks on the
 * way are followed inside the root only.
 */
export async function resolveDir(root: string, dir: string[], create = true): Promise<string> {
  const pending = [...dir];
  const stack: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const comp = pending.shift()!;
    if (comp === '..') {
      if (stack.length === 0) throw new UnsafeEntryError('a symlink on the path points outside the root');
      stack.pop();
      continue;
    }
    const host = path.join(root, ...stack, comp);
    const st = await fs.lstat(host).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    if (!st) {
      if (!create) throw new UnsafeEntryError(`"${[...stack, comp].join('/')}" does not exist`);
      await fs.mkdir(host, { mode: 0o755 });
      stack.push(comp);
    } else if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new UnsafeEntryError('too many levels of symbolic links');
      const target = await fs.readlink(host);
      if (target.startsWith('/')) stack.length = 0;
      pending.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
    } else if (st.isDirectory()) {
      stack.push(comp);
    } else {
      throw new UnsafeEntryError(`"${[...stack, comp].join('/')}" is not a directory`);
    }
  }
  return path.join(root, ...stack);
}
