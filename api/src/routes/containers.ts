import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zInt, zText } from '../http/schemas.js';
import { checkFileName, checkFolder, uploadPath } from '../services/containers.js';
import type { Services } from '../services/index.js';
import { zContainerId } from './images.js';
import { withUploadedFile } from './multipart.js';

const containerParams = z.object({ uuid: zContainerId }).strict();
const zTerminalSide = (max: number) =>
  zInt.pipe(z.number().min(1, 'must be at least 1').max(max, `must be at most ${max}`));

export function containerRoutes(services: Services): RouteDefinition[] {
  const { containers, config } = services;
  return [
    route({
      method: 'post',
      path: '/container/:uuid/archive',
      tag: 'sandboxes',
      summary: "Whether a file exists in the container's working folder (before an upload overwrites it).",
      params: containerParams,
      body: z.object({ name: zText(255, { min: 1 }), path: zText(4096).optional() }).strict(),
      result: z.boolean(),
      async handler({ caller, params, body }) {
        const name = checkFileName(body.name, 'name');
        const target = body.path ? `${checkFolder(body.path, 'path').replace(/\/+$/, '')}/${name}` : name;
        return containers.exists(caller!, params.uuid, target);
      },
    }),
    route({
      method: 'put',
      path: '/container/:uuid/archive',
      tag: 'sandboxes',
      summary:
        "Upload one file (multipart/form-data, field `file`; optional `path` field before it: the folder, default the container's working folder). Streamed; over the upload limit: 413.",
      params: containerParams,
      result: z.object({ name: z.string(), path: z.string(), size: z.number() }),
      async handler({ caller, params, req, res }) {
        containers.owned(caller!, params.uuid);
        return withUploadedFile(req, res, async (file) => {
          const path = uploadPath(file.fields.path || undefined, file.fileName);
          const { size } = await containers.upload(
            caller!,
            params.uuid,
            path,
            file.stream,
            config.builder.uploadMaxBytes,
          );
          return { name: path.split('/').pop()!, path, size };
        });
      },
    }),
    route({
      method: 'post',
      path: '/terminal',
      tag: 'sandboxes',
      summary:
        "Resize the container's terminal (its open shells and the next ones). The terminal socket carries only keystrokes and output.",
      body: z.object({ uuid: zContainerId, rows: zTerminalSide(500), cols: zTerminalSide(1000) }).strict(),
      result: z.literal(true),
      async handler({ caller, body }) {
        containers.resize(caller!, body.uuid, { cols: body.cols, rows: body.rows });
        return true as const;
      },
    }),
  ];
}
