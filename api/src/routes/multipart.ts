// One file out of a multipart/form-data request, streamed: the fields sent before it are known
// when it starts (the page sends `path` before `file`), and nothing is buffered on the way.
import type { Request, Response } from 'express';
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { badRequest } from '../errors.js';

export interface MultipartFile {
  fileName: string;
  mimeType: string;
  stream: Readable;
  fields: Record<string, string>;
}

/**
 * Calls `consume` with the request's first file and resolves with what it returns. Fields
 * after the file, a second file, or a body that is not multipart are refused with a 400.
 */
export function withUploadedFile<T>(
  req: Request,
  res: Response,
  consume: (file: MultipartFile) => Promise<T>,
): Promise<T> {
  if (!req.is('multipart/form-data'))
    return Promise.reject(badRequest('file: send the file as multipart/form-data', 'invalid_body'));
  return new Promise<T>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fields: 20, fieldSize: 8192, fieldNameSize: 100 },
        defParamCharset: 'utf8',
      });
    } catch (error) {
      reject(
        Object.assign(badRequest(`file: ${(error as Error).message}`, 'invalid_body'), { cause: error }),
      );
      return;
    }
    const fields: Record<string, string> = {};
    let started = false;
    const fail = (error: unknown) => {
      // The rest of the body is not wanted: the answer closes the connection.
      res.setHeader('Connection', 'close');
      req.unpipe(parser);
      req.resume();
      reject(error as Error);
    };
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (_name, stream, info) => {
      if (started) {
        stream.resume();
        return;
      }
      started = true;
      consume({ fileName: info.filename ?? '', mimeType: info.mimeType, stream, fields }).then((value) => {
        // What follows the file (a closing boundary) is read before answering.
        stream.resume();
        resolve(value);
      }, fail);
    });
    parser.on('filesLimit', () => undefined);
    parser.on('error', (error) =>
      fail(Object.assign(badRequest(`file: ${(error as Error).message}`, 'invalid_body'), { cause: error })),
    );
    parser.on('close', () => {
      if (!started) fail(badRequest('file: no file in the form', 'missing_file'));
    });
    req.pipe(parser);
  });
}
