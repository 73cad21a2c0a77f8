import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import { tooLarge } from '../errors.js';
import { route, type RouteDefinition } from '../http/route.js';
import { MAX_VARIABLE_FILE_BYTES, parseVariableFile } from '../services/variable-files.js';
import type { Services } from '../services/index.js';
import { withUploadedFile } from './multipart.js';

export function parseRoutes(_services: Services): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/parse/variables',
      tag: 'sandboxes',
      summary:
        'Variables from a file (multipart/form-data, field `file`): .csv rows name,value; .json or .yml a list of {name, value} or a map.',
      result: z.array(z.object({ name: z.string(), value: z.string() })),
      async handler({ req, res }) {
        return withUploadedFile(req, res, async (file) => {
          let size = 0;
          file.stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_VARIABLE_FILE_BYTES) file.stream.destroy(tooLarge('file: larger than 1 MiB'));
          });
          const bytes = await buffer(file.stream);
          return parseVariableFile(file.fileName, bytes);
        });
      },
    }),
  ];
}
