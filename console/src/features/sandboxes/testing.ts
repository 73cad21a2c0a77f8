// Sandbox answers as the API gives them (tests only).
import type { Sandbox, SandboxPage } from './types';

export const OWNER_ID = '6f1c1c1e-5d4b-4d0e-9a55-0a3c1f1d2b3c';
export const OTHER_ID = '0b7d2f4e-1111-4c4c-8a8a-123456789abc';

/** A sandbox number `n` owned by the fixture person (aMe()), with `overrides`. */
export function aSandbox(n: number, overrides: Partial<Sandbox> = {}): Sandbox {
  return {
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `box_${n}`,
    version: '1.0.0',
    description: `Sandbox number ${n}`,
    entrypoint: '/entrypoint.sh',
    architecture: 'amd64',
    gpu_required: false,
    author_id: OWNER_ID,
    author: 'Ada Lovelace',
    constraints: { cpu: 500, memory: 512, disk: 102 },
    creation_date: new Date(2026, 10, 20, 10, n % 60, 0).toISOString(),
    update_date: new Date(2026, 10, 21, 10, 0, 0).toISOString(),
    avatar: '',
    history: [],
    image_id: '',
    image_registry: '',
    registry_name: '',
    image_ref: '',
    phase: 'Ready',
    organization_id: 'org-1',
    mount_points: [],
    permissions: {},
    user_access: { read: true, write: true, execute: true, owner: true },
    tags: [],
    variables: [],
    source_image: { image: 'busybox', version: 'latest' },
    visibility: { type: 'private', locked: false },
    ...overrides,
  };
}

export const aPage = (sandboxes: Sandbox[], total = sandboxes.length, page = 0, size = 30): SandboxPage => ({
  sandboxes,
  total,
  page,
  size,
});

type Listener = (event: Event) => void;
/**
 * The terminal socket as a test drives it: records what xterm sends, opens, delivers and
 * closes on the test's word. Installed with vi.stubGlobal('WebSocket', TerminalSocket).
 */
export class TerminalSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static made: TerminalSocket[] = [];
  readyState = TerminalSocket.CONNECTING;
  binaryType = 'blob';
  sent: string[] = [];
  onopen: Listener | null = null;
  onclose: Listener | null = null;
  constructor(readonly url: string) {
    super();
    TerminalSocket.made.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    if (this.readyState === TerminalSocket.CLOSED) return;
    this.readyState = TerminalSocket.CLOSED;
    const event = new Event('close');
    this.onclose?.(event);
    this.dispatchEvent(event);
  }
  serverOpens() {
    this.readyState = TerminalSocket.OPEN;
    const event = new Event('open');
    this.onopen?.(event);
    this.dispatchEvent(event);
  }
  serverSends(text: string) {
    this.dispatchEvent(new MessageEvent('message', { data: text }));
  }
}
