// Spec 2 §7, runs: the run's output files, the log download and the file links. Logs and files
// come from argo-server through the generated client (services/run-files.ts); downloads are
// streamed, never held whole.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { z } from 'zod';
import { HANDLED, route, type RouteDefinition } from '../http/route.js';
import { zText } from '../http/schemas.js';
import type { Services } from '../services/index.js';

const zId = z
  .string()
  .max(253, 'at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be an id (a DNS-1123 name)');
// A sandbox or dynamic-instance name (`split(3)`), or the id of its graph node.
const zName = z
  .string()
  .min(1)
  .max(253, 'at most 253 characters')
  .regex(/^[\w.()-]+$/, 'must be a sandbox name or id');
const zFileName = zText(1024, { min: 1, trim: false });

const zFile = z.strictObject({
  name: z.string().describe('Path of the file inside the step output folder.'),
  sandbox: z.string(),
  size: z.number().int().describe('Bytes.'),
  creation_time: z.string().describe('ISO date: when the step that wrote it ended.'),
  path: z.string(),
});

const attachment = (name: string) =>
  `attachment; filename="${name.replace(/[^\w.()-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/** Pipes a download; a client gone mid-way ends it quietly (the answer has started already). */
async function send(
  res: Response,
  body: ReadableStream<Uint8Array> | AsyncIterable<{ content?: string }>,
): Promise<typeof HANDLED> {
  try {
    if ('getReader' in body) await pipeline(Readable.fromWeb(body as never), res);
    else await writeLines(res, body);
  } catch (error) {
    if (!res.headersSent) throw error;
    res.destroy();
  }
  return HANDLED;
}

/** Writes lines with backpressure; a client gone stops the reading. */
async function writeLines(res: Response, lines: AsyncIterable<{ content?: string }>) {
  let chunk = '';
  for await (const entry of lines) {
    chunk += `${entry.content ?? ''}\n`;
    if (chunk.length < 64 * 1024) continue;
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    chunk = '';
    if (res.destroyed) return;
  }
  res.end(chunk);
}

export function fileRoutes(services: Services): RouteDefinition[] {
  const files = services.runFiles;
  return [
    route({
      method: 'get',
      path: '/file/:uuid',
      tag: 'runs',
      summary:
        'The output files of a run (name, sandbox, size, creation_time, path); its steps’ logs are not listed.',
      params: z.object({ uuid: zId }).strict(),
      result: z.array(zFile),
      handler: ({ caller, params }) => files.list(caller!, params.uuid),
    }),
    route({
      method: 'get',
      path: '/file/:run/:sandboxId/:name',
      tag: 'runs',
      summary:
        'Download the whole log of a sandbox (or a dynamic instance, `name(i)`) of a run: its latest execution, streamed.',
      params: z.object({ run: zId, sandboxId: zName, name: zName }).strict(),
      raw: { status: 200, contentType: 'text/plain', description: 'The log, as the step printed it.' },
      async handler({ caller, params, res }) {
        const log = await files.log(caller!, params.run, params.sandboxId, params.name);
        res.status(200);
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.setHeader('content-disposition', attachment(`${params.name}.log`));
        return send(res, log.bytes ?? log.lines);
      },
    }),
    route({
      method: 'get',
      path: '/file/:run/:sandboxId/:sandbox/:filename',
      tag: 'runs',
      summary:
        'Download an output file of a sandbox (its latest execution) or of one dynamic instance (`name(i)`), streamed.',
      params: z.object({ run: zId, sandboxId: zName, sandbox: zName, filename: zFileName }).strict(),
      raw: { status: 200, contentType: 'application/octet-stream', description: 'The file.' },
      async handler({ caller, params, res }) {
        const file = await files.file(caller!, params.run, params.sandboxId, params.sandbox, params.filename);
        res.status(200);
        res.setHeader('content-type', file.contentType);
        if (file.size !== undefined) res.setHeader('content-length', String(file.size));
        res.setHeader('content-disposition', attachment(file.name));
        return send(res, file.body);
      },
    }),
  ];
}
