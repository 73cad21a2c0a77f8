// The compiler's `sf-split` helper (a busybox script that splits a file by lines, or a folder's
// entries, into part-* items and prints their names as a JSON list) implemented natively, so dynamic
// instances work on a machine without busybox. Same outputs as the script: part names follow
// `split -a 6` (part-aaaaaa, part-aaaaab, …) in line mode and part-000000… in file mode.
import fs from 'node:fs';
import path from 'node:path';
import type { Template } from './argo.js';

/** The compiler marks its helper by the template name `sf-split` (SPLIT_TEMPLATE) with these inputs. */
export const SPLIT_TEMPLATE = 'sf-split';

export function isSplitHelper(t: Template): boolean {
  const names = (t.inputs?.parameters ?? []).map((p) => p.name).sort();
  return t.name === SPLIT_TEMPLATE && !!t.script && names.join(',') === 'mode,per,source,target';
}

function alphaSuffix(i: number, width = 6): string {
  let s = '';
  for (let k = 0; k < width; k++) {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26);
  }
  return s;
}

export async function splitNative(p: {
  source: string;
  target: string;
  mode: string;
  per: number;
}): Promise<string> {
  const per = Math.max(1, Math.floor(p.per) || 1);
  fs.rmSync(p.target, { recursive: true, force: true });
  fs.mkdirSync(p.target, { recursive: true });
  const parts: string[] = [];
  if (p.mode === 'line') {
    let text = '';
    try {
      text = fs.readFileSync(p.source, 'utf8');
    } catch {
      text = '';
    }
    if (text.length > 0) {
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      for (let i = 0; i * per < lines.length; i++) {
        const name = `part-${alphaSuffix(i)}`;
        fs.writeFileSync(path.join(p.target, name), lines.slice(i * per, (i + 1) * per).join('\n') + '\n');
        parts.push(name);
      }
    }
  } else {
    let entries: string[] = [];
    try {
      entries = fs
        .readdirSync(p.source)
        .filter((e) => !e.startsWith('.'))
        .sort();
    } catch {
      entries = [];
    }
    entries.forEach((entry, i) => {
      const name = `part-${String(Math.floor(i / per)).padStart(6, '0')}`;
      const dir = path.join(p.target, name);
      fs.mkdirSync(dir, { recursive: true });
      fs.cpSync(path.join(p.source, entry), path.join(dir, entry), { recursive: true });
      if (!parts.includes(name)) parts.push(name);
    });
  }
  return `[${parts.map((n) => JSON.stringify(n)).join(',')}]`;
}
