/** The three states of the realtime dot (spec 1 §9). */
export type RealtimeStatus = 'connecting' | 'connected' | 'closed';

/** The acknowledgement each message is answered with (spec 1 §7.1). */
export const ACK = 'Ok';
/** A normal close (spec 1 §4): sign-out, leaving the app. */
export const NORMAL_CLOSURE = 1000;

/** 1 s, 2 s, 4 s … capped at 30 s. */
export const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** attempt);

export interface RealtimeClientOptions {
  url: string;
  onStatus: (status: RealtimeStatus) => void;
  /** Each message once acknowledged; null when it is not the JSON the server sends. */
  onMessage: (message: RealtimeMessage | null) => void;
  /** The socket failed (once per outage, not once per retry). */
  onDown: () => void;
  /**
   * Awaited before each automatic retry: the container asks the API for /me, which refreshes
   * an expired access cookie (the upgrade is authenticated by it) or signs the person out.
   */
  prepareReconnect?: () => Promise<unknown>;
  backoff?: (attempt: number) => number;
  /** Automatic retries after an unexpected close; then the status is closed (click to retry). */
  maxRetries?: number;
}

/**
 * The realtime notification socket: acknowledges every message with `Ok`, reports its
 * status, retries with backoff after an unexpected close (then quietly at the longest wait, the
 * dot closed), and closes with 1000 when told.
 */
export class RealtimeClient {
  private socket: WebSocket | null = null;
  private retries = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private downReported = false;
  private current: RealtimeStatus = 'closed';
  private quiet = false;

  constructor(private readonly options: RealtimeClientOptions) {}

  get status(): RealtimeStatus {
    return this.current;
  }

  /**
   * Opens the socket (no-op while one is open or opening). A quiet attempt (past the retries)
   * leaves the dot closed unless it opens.
   */
  connect(options: { quiet?: boolean } = {}) {
    if (this.socket) return;
    this.stopped = false;
    this.quiet = options.quiet === true;
    this.clearTimer();
    if (!this.quiet) this.setStatus('connecting');
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url);
    } catch {
      this.reportDown();
      this.afterClose();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.retries = 0;
      this.downReported = false;
      this.setStatus('connected');
    };
    socket.onmessage = (event: MessageEvent) => {
      // Every message is answered, even one we cannot read: the server settles its
      // pending messages in order, one per acknowledgement.
      socket.send(ACK);
      this.options.onMessage(parse(event.data));
    };
    socket.onerror = () => this.reportDown();
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.afterClose();
    };
  }

  /** The dot's click when closed: start over with a fresh retry budget. */
  reconnect() {
    this.retries = 0;
    if (this.socket) {
      // A quiet attempt is under way: it is the click's attempt now.
      if (this.quiet) this.setStatus('connecting');
      this.quiet = false;
      return;
    }
    this.connect();
  }

  /** Sign-out or unmount: a normal close, and no retry. */
  close() {
    this.stopped = true;
    this.clearTimer();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN)
        socket.close(NORMAL_CLOSURE);
    }
    this.setStatus('closed');
  }

  private afterClose() {
    if (this.stopped) return this.setStatus('closed');
    const { maxRetries = 6, backoff = defaultBackoff, prepareReconnect } = this.options;
    // Past its retries the dot says closed (a click tries at once), but the socket is still tried
    // quietly at the longest wait: a platform that takes minutes to restart is found again by
    // itself, without a click or a reload.
    const quiet = this.retries >= maxRetries;
    const delay = backoff(quiet ? maxRetries : this.retries++);
    this.setStatus(quiet ? 'closed' : 'connecting');
    this.timer = setTimeout(() => {
      this.timer = null;
      const ready = prepareReconnect ? prepareReconnect().catch(() => undefined) : Promise.resolve();
      void ready.then(() => {
        if (!this.stopped && !this.socket) this.connect({ quiet });
      });
    }, delay);
  }

  private reportDown() {
    if (this.downReported || this.stopped) return;
    this.downReported = true;
    this.options.onDown();
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private setStatus(status: RealtimeStatus) {
    if (status === this.current) return;
    this.current = status;
    this.options.onStatus(status);
  }
}

/** A realtime message as sent on the websocket (spec 1 §3; the socket is not in the OpenAPI document). */
export interface RealtimeMessage {
  id: number;
  message_title: string;
  message_type: string;
  message_text: string;
  message_data: string;
}

function parse(data: unknown): RealtimeMessage | null {
  if (typeof data !== 'string') return null;
  try {
    const message: unknown = JSON.parse(data);
    return isRealtimeMessage(message) ? message : null;
  } catch {
    return null;
  }
}

function isRealtimeMessage(value: unknown): value is RealtimeMessage {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return (
    typeof m.id === 'number' &&
    typeof m.message_title === 'string' &&
    typeof m.message_type === 'string' &&
    typeof m.message_text === 'string' &&
    (typeof m.message_data === 'string' || m.message_data === undefined)
  );
}

/** ws(s)://<this host>/api/v0/notifications: the access cookie travels with the upgrade. */
export function realtimeUrl(base = '/api/v0') {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${base}/notifications`;
}
