import { vi } from 'vitest';

/**
 * A stand-in for the browser's WebSocket (tests only): records what is sent and lets the
 * test open, feed, fail and close it. Install with `installFakeWebSocket()`.
 */
export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static instances: FakeWebSocket[] = [];
  static latest() {
    return FakeWebSocket.instances.at(-1)!;
  }

  readyState = FakeWebSocket.CONNECTING;
  sent: string[] = [];
  closedWith: number | undefined;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  send(data: string) {
    if (this.readyState !== FakeWebSocket.OPEN) throw new Error('InvalidStateError: not open');
    this.sent.push(data);
  }

  close(code = 1000) {
    this.closedWith = code;
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new CloseEvent('close', { code }));
  }

  // --- driven by the test: what the server or the network does ---
  serverOpens() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.(new Event('open'));
  }
  serverSends(data: unknown) {
    this.onmessage?.(
      new MessageEvent('message', { data: typeof data === 'string' ? data : JSON.stringify(data) }),
    );
  }
  /** An error then an abnormal close (1006), as a browser reports a dropped or refused socket. */
  drops() {
    this.onerror?.(new Event('error'));
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.(new CloseEvent('close', { code: 1006 }));
  }
}

/** Makes FakeWebSocket the global WebSocket, with no instance made yet. */
export function installFakeWebSocket() {
  FakeWebSocket.instances = [];
  vi.stubGlobal('WebSocket', FakeWebSocket);
}
