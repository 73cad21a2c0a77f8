import http, { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The answer to a request Node's HTTP parser refused before Express saw it (headers or URL
 * over the limit, a malformed request line, a request too slow to arrive): the status and the
 * `{ result: null, status, error: { code, message } }` envelope every other failure has.
 */
export function clientErrorAnswer(
  error: NodeJS.ErrnoException,
  maxHeaderSize = http.maxHeaderSize,
): { status: number; code: string; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'headers_too_large',
        message: `request: the URL and headers are over the limit of ${maxHeaderSize} bytes`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'body_too_large', message: 'body: chunk extensions too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'request: not received in time' };
    default:
      return {
        status: 400,
        code: 'bad_request',
        message: `request: not valid HTTP/1.1${error.code ? ` (${error.code})` : ''}`,
      };
  }
}

/** The complete HTTP/1.1 response (JSON envelope, then the connection closes) for a client error. */
export function clientErrorResponse(error: NodeJS.ErrnoException, maxHeaderSize?: number): string {
  const { status, code, message } = clientErrorAnswer(error, maxHeaderSize);
  const body = JSON.stringify({ result: null, status, error: { code, message } });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Makes the server answer the requests its parser refuses with the JSON envelope instead of
 * Node's bare status line (an empty 431 for a long query string, say). Attach it wherever a
 * server for the API is created.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection must not be corrupted (Node's own rule).
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(
      clientErrorResponse(
        error,
        (server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? http.maxHeaderSize,
      ),
      () => socket.destroy(),
    );
  });
}
