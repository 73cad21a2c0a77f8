// ESLint rule `sandflow/boundaries`: workspaces meet through their package names and exports only.
// - a file of a workspace may not import a relative path leading out of its workspace folder;
// - a benchmark or a cross-package test may not import a relative path leading out of bench/ or
//   tests/ (no workspace internals: they are reached through package exports such as /testing);
// - the console (a browser bundle) may import no app workspace but @sandflow/crds.
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKSPACES = ['kube', 'images', 'crds', 'embedded', 'operator', 'api', 'console'];
const CONSOLE_MAY_IMPORT = new Set(['@sandflow/crds']);

/** The folder a file's relative imports must stay in, and what it is called. */
function fenceOf(file) {
  const top = path.relative(ROOT, file).split(path.sep)[0];
  if (WORKSPACES.includes(top)) return { dir: path.join(ROOT, top), what: `the ${top} workspace` };
  if (top === 'bench' || top === 'tests') return { dir: path.join(ROOT, top), what: `${top}/` };
  return undefined;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'workspaces import each other by package name; the console only @sandflow/crds' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const fence = fenceOf(file);
    const inConsole = path.relative(ROOT, file).split(path.sep)[0] === 'console';
    const check = (node) => {
      const source = node?.value;
      if (typeof source !== 'string') return;
      if (fence && source.startsWith('.')) {
        const target = path.resolve(path.dirname(file), source);
        if (target !== fence.dir && !target.startsWith(fence.dir + path.sep))
          context.report({
            node,
            message: `'${source}' leads out of ${fence.what}: import the package (and its exports) instead`,
          });
      }
      if (inConsole && source.startsWith('@sandflow/')) {
        const pkg = source.split('/').slice(0, 2).join('/');
        if (!CONSOLE_MAY_IMPORT.has(pkg))
          context.report({
            node,
            message: `the console may import no app workspace but @sandflow/crds (got '${source}')`,
          });
      }
    };
    return {
      ImportDeclaration: (n) => check(n.source),
      ExportNamedDeclaration: (n) => check(n.source),
      ExportAllDeclaration: (n) => check(n.source),
      ImportExpression: (n) => check(n.source),
    };
  },
};

export default { rules: { boundaries: rule } };
