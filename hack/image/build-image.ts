// Daemonless image build: the application folder as one layer appended onto a base image, pushed
// to a registry with the project's own OCI code (what `crane append` does). No container engine:
// the layer is a deterministic gzip tar of `<root>/app`, owned by root (the runtime user, 1000,
// can read but not change the application), and the config gains the user, folder and command.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  appendLayer,
  diffRoots,
  layerBlob,
  writeLayer,
  type AppendResult,
  type Architecture,
  type ImageStore,
} from '@sandflow/images';

export interface AppImageOptions {
  /** Holds `app/`, the folder that becomes /app in the image. */
  root: string;
  from: ImageStore;
  fromRepository: string;
  /** Tag or digest of the base image. */
  reference: string;
  to: ImageStore;
  toRepository: string;
  tag: string;
  architecture: Architecture;
  /** The container's default command (the chart and config/ name theirs). */
  cmd: string[];
  /** The history entry's created_by. */
  createdBy?: string;
}

/** The run settings of a Sandflow image: non-root, in /app, production Node. */
export const APP_USER = '1000:1000';
export const APP_DIR = '/app';

export async function buildAppImage(options: AppImageOptions): Promise<AppendResult> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'sandflow-image-'));
  try {
    const empty = path.join(work, 'empty');
    await fs.mkdir(empty);
    // Everything under root is "added" against an empty folder.
    const changes = await diffRoots(empty, options.root);
    const outside = changes.find((c) => c.path !== 'app' && !c.path.startsWith('app/'));
    if (outside) throw new Error(`${options.root} must hold only app/, found ${outside.path}`);
    const layer = await writeLayer(options.root, changes, path.join(work, 'layer.tar.gz'), () => [0, 0]);
    return await appendLayer({
      from: options.from,
      fromRepository: options.fromRepository,
      reference: options.reference,
      architecture: options.architecture,
      to: options.to,
      toRepository: options.toRepository,
      tag: options.tag,
      layer: layerBlob(layer),
      createdBy: options.createdBy ?? 'sandflow hack/image/build.ts: COPY app /app',
      configure: (base) => ({
        ...base,
        User: APP_USER,
        WorkingDir: APP_DIR,
        Cmd: options.cmd,
        // The base's PATH and NODE_VERSION stay; NODE_ENV is the application's.
        Env: [...(base.Env ?? []).filter((e) => !e.startsWith('NODE_ENV=')), 'NODE_ENV=production'],
      }),
    });
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
