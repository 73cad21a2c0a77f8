// argo-server over an agent's socket: a `fetch` for the generated Argo client (openapi-fetch takes
// one) that sends the request's path to the agent, which asks its own argo-server and streams the
// answer back in chunks. Only GETs exist in the routes the platform reads, so only GETs are carried.
import type { HubMessage } from './protocol.js';

interface Pending {
  head: (r: Response) => void;
  fail: (e: Error) => void;
  body?: ReadableStreamDefaultController<Uint8Array>;
}

/** The requests in flight over one agent connection. */
export class AgentRequests {
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly send: (m: HubMessage) => void) {}

  readonly fetch = (input: Request): Promise<Response> => {
    if (input.method !== 'GET')
      return Promise.reject(new TypeError(`${input.method} is not carried to agents`));
    const url = new URL(input.url);
    const id = this.next++;
    return new Promise<Response>((resolve, reject) => {
      const signal = input.signal;
      const abort = () => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        this.send({ type: 'http-cancel', id });
        const e = new DOMException('aborted', 'AbortError');
        p.fail(e as Error);
        try {
          p.body?.error(e);
        } catch {
          // the stream was already closed
        }
      };
      if (signal?.aborted) return reject(new DOMException('aborted', 'AbortError'));
      signal?.addEventListener('abort', abort, { once: true });
      let settled = false;
      this.pending.set(id, {
        head: (r) => {
          settled = true;
          resolve(r);
        },
        fail: (e) => {
          if (!settled) reject(e);
        },
      });
      this.send({ type: 'http', id, path: url.pathname + url.search });
    });
  };

  /** The agent's answer began: status and headers; the body follows. */
  head(id: number, status: number, headers: Record<string, string>) {
    const p = this.pending.get(id);
    if (!p) return;
    const body =
      status === 204 || status === 304
        ? null
        : new ReadableStream<Uint8Array>({
            start: (controller) => {
              p.body = controller;
            },
            cancel: () => {
              if (this.pending.delete(id)) this.send({ type: 'http-cancel', id });
            },
          });
    p.head(new Response(body, { status, headers }));
  }

  chunk(id: number, base64: string) {
    this.pending.get(id)?.body?.enqueue(new Uint8Array(Buffer.from(base64, 'base64')));
  }

  end(id: number, error?: string) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (error) {
      p.fail(new TypeError(`agent: ${error}`));
      p.body?.error(new TypeError(`agent: ${error}`));
    } else p.body?.close();
  }

  /** The connection is gone: every request in flight fails (the API answers 502). */
  closeAll() {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      const e = new TypeError('the agent disconnected');
      p.fail(e);
      try {
        p.body?.error(e);
      } catch {
        // the stream was already closed
      }
    }
  }
}
