import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from './client-errors.js';

let server: Server;
let port: number;

beforeAll(async () => {
  // A short request timeout (checked often) so the slow-request case runs in a moment.
  server = http.createServer({ requestTimeout: 300, connectionsCheckingInterval: 50 }, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ result: req.url?.length ?? 0, status: 200 }));
  });
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/** Writes bytes on a fresh connection (optionally not all at once) and reads everything back. */
function raw(request: string, options: { hold?: boolean } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: Object.fromEntries(
          lines.map((line) => {
            const at = line.indexOf(':');
            return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
          }),
        ),
        body,
        closed: true,
      });
    });
    socket.write(request);
    if (!options.hold) socket.end();
  });
}

const LIMIT = http.maxHeaderSize;

describe('answerClientErrors', () => {
  it.each([
    [
      'a query string over the header limit',
      `GET /workflow?search=${'x'.repeat(LIMIT + 1024)} HTTP/1.1\r\nHost: a\r\n\r\n`,
      431,
      'headers_too_large',
      `request: the URL and headers are over the limit of ${LIMIT} bytes`,
    ],
    [
      'one header over the limit',
      `GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(LIMIT + 1)}\r\n\r\n`,
      431,
      'headers_too_large',
      `request: the URL and headers are over the limit of ${LIMIT} bytes`,
    ],
    [
      'a request line that is not HTTP',
      'NOT HTTP AT ALL\r\n\r\n',
      400,
      'bad_request',
      'request: not valid HTTP/1.1 (HPE_INVALID_METHOD)',
    ],
    [
      'a header name with a space',
      'GET / HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n',
      400,
      'bad_request',
      'request: not valid HTTP/1.1 (HPE_INVALID_HEADER_TOKEN)',
    ],
  ])('answers %s with the JSON envelope and closes', async (_case, request, status, code, message) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.connection).toBe('close');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body)).toEqual({ result: null, status, error: { code, message } });
    expect(res.closed).toBe(true);
  });

  it('answers a request whose headers do not arrive in time with a 408 envelope', async () => {
    const res = await raw('GET / HTTP/1.1\r\nHost: a\r\n', { hold: true });
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({
      result: null,
      status: 408,
      error: { code: 'request_timeout', message: 'request: not received in time' },
    });
  });

  it('does not write into a response already under way (a malformed body after the answer)', async () => {
    const res = await raw('POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ result: 1, status: 200 });
  });

  it('leaves requests within the limits to the application', async () => {
    const url = `/workflow?search=${'x'.repeat(LIMIT / 2)}`;
    const res = await fetch(`http://127.0.0.1:${port}${url}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ result: url.length, status: 200 });
  });

  it('answers what fetch sees as a JSON 431 for a URL over the limit', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/workflow?search=${'x'.repeat(LIMIT)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({
      result: null,
      status: 431,
      error: { code: 'headers_too_large' },
    });
  });
});
