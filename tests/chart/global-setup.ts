import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

const root = path.resolve(import.meta.dirname, '../..');
const bin = process.env.ENVTEST_BIN_DIR ?? path.join(root, '.cache/envtest/bin');

const TOOLS = [
  { name: 'helm', module: 'helm.sh/helm/v3' },
  { name: 'kubeconform', module: 'github.com/yannh/kubeconform' },
];

/**
 * helm and kubeconform in `bin` are the versions hack/envtest/tools/go.mod pins (their stamps say
 * so): used as they are, without taking build.sh's lock (which a long `build.sh core` may hold).
 */
function builtAtPinnedVersion(): boolean {
  const goMod = fs.readFileSync(path.join(root, 'hack/envtest/tools/go.mod'), 'utf8');
  return TOOLS.every(({ name, module }) => {
    const version = new RegExp(`^\\s*${module.replace(/[./]/g, '\\$&')} (v\\S+)`, 'm').exec(goMod)?.[1];
    const stamp = path.join(bin, `.${name}.stamp`);
    return (
      !!version &&
      fs.existsSync(path.join(bin, name)) &&
      fs.existsSync(stamp) &&
      fs.readFileSync(stamp, 'utf8').startsWith(`${name} ${version} `)
    );
  });
}

/**
 * Gives the `chart` suites helm (and kubeconform): built from Go modules by hack/envtest/build.sh
 * into .cache/envtest/bin (a no-op when its stamp matches; a cold build takes minutes), or the
 * binary already there when Go is not installed. HELM=<path> names another binary. Neither:
 * the suites are skipped, and this says why.
 */
export default function setup(project: TestProject) {
  let helm = process.env.HELM ?? '';
  if (!helm && builtAtPinnedVersion()) helm = path.join(bin, 'helm');
  if (!helm) {
    const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
    if (hasGo) {
      try {
        // kubeconform too: the envtest chart suite checks the rendered chart with it.
        execFileSync(path.join(root, 'hack/envtest/build.sh'), ['tools'], {
          stdio: ['ignore', 'inherit', 'inherit'],
        });
      } catch (e) {
        console.warn(`chart tests: building helm and kubeconform failed: ${(e as Error).message}`);
      }
    }
    if (fs.existsSync(path.join(bin, 'helm'))) helm = path.join(bin, 'helm');
  }
  if (!helm)
    console.warn(
      `chart tests SKIPPED: no helm binary — none in ${bin} and no 'go' to build one with hack/envtest/build.sh helm (or set HELM=<path>)`,
    );
  project.provide('helm', helm);
}

declare module 'vitest' {
  export interface ProvidedContext {
    helm: string;
  }
}
