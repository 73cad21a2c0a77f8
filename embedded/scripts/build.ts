// Bundles the all-in-one process (embedded/src/main.ts and the @sandflow workspaces it imports) into
// embedded/dist/main.js, which `npm start` runs under plain node. Under tsx the same process holds
// ≈ 135 MB more (tsx's loader thread and the transpiled modules; measured in bench/memory), and the
// tsx command-line wrapper could SIGKILL it while it was still shutting down. Packages from
// node_modules stay external and load as they are.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ENTRY = path.join(root, 'embedded/src/main.ts');
export const OUTFILE = path.join(root, 'embedded/dist/main.js');

/**
 * Workspace modules find their files beside their sources (migrations, CRD YAML, the OpenAPI
 * document): each keeps its own import.meta.url rather than the bundle's.
 */
const sourceLocation: Plugin = {
  name: 'source-location',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@sandflow/') ? undefined : { external: true },
    );
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      return {
        loader: 'ts',
        contents: source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path))),
      };
    });
  },
};

export async function buildPlatform(): Promise<void> {
  await build({
    entryPoints: [ENTRY],
    outfile: OUTFILE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [sourceLocation],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  await buildPlatform();
