// Fixtures and jsdom stand-ins for the workflow screens' tests.
import { vi } from 'vitest';
import type { SavedWorkflow, WorkflowItem } from './types';

const OWNER_ID = '6f1c1c1e-5d4b-4d0e-9a55-0a3c1f1d2b3c';

/**
 * What React Flow measures and jsdom lacks (its testing guide): sizes from offsetWidth/Height,
 * a ResizeObserver that reports at once, DOMMatrixReadOnly for the zoom.
 */
export function stubReactFlowDom() {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(target: Element) {
        this.callback([{ target } as ResizeObserverEntry], this as unknown as ResizeObserver);
      }
      unobserve() {}
      disconnect() {}
    },
  );
  vi.stubGlobal(
    'DOMMatrixReadOnly',
    class {
      m22: number;
      constructor(transform?: string) {
        const scale = /scale\(([\d.]+)\)/.exec(transform ?? '')?.[1];
        this.m22 = scale === undefined ? 1 : Number(scale);
      }
    },
  );
  for (const [key, fallback] of [
    ['offsetWidth', 1000],
    ['offsetHeight', 700],
  ] as const)
    Object.defineProperty(HTMLElement.prototype, key, {
      configurable: true,
      get(this: HTMLElement) {
        const own = parseFloat(key === 'offsetWidth' ? this.style.width : this.style.height);
        return Number.isNaN(own) ? fallback : own;
      },
    });
  (SVGElement.prototype as unknown as { getBBox: () => DOMRect }).getBBox = () =>
    ({ x: 0, y: 0, width: 0, height: 0 }) as DOMRect;
}

/** A list item number `n` owned by the fixture person (aMe()), with `overrides`. */
export function aWorkflowItem(n: number, overrides: Partial<WorkflowItem> = {}): WorkflowItem {
  return {
    uuid: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `flow_${n}`,
    creationDate: new Date(2026, 10, 20, 10, n % 60, 0).toISOString(),
    tags: [],
    owner: OWNER_ID,
    prettyOwner: 'Ada Lovelace',
    visibility: { type: 'private', groups: [] },
    sandboxes: [{ sandbox_name: 'ingest', variables: [{ name: 'K', value: 'v' }] }],
    version: '1.0.0',
    valid: true,
    user_access: { read: true, write: true, execute: true, owner: true },
    ...overrides,
  };
}

/** GET /workflow/{uuid} of workflow `n`: two nodes joined by an arrow. */
export function aSavedWorkflow(n: number, overrides: Partial<SavedWorkflow> = {}): SavedWorkflow {
  const item = aWorkflowItem(n);
  const node = (id: string, x: number) => ({
    id,
    name: id,
    x,
    y: 100,
    src_id: `00000000-0000-4000-8000-00000000000${id === 'a' ? 1 : 2}`,
    owner: OWNER_ID,
    continueOnFail: false,
    variables: [],
  });
  return {
    ...item,
    sandboxes: [],
    nodes: [node('a', 100), node('b', 320)],
    switches: [],
    edges: [
      { id: 'start->a', from: 'start', to: 'a', type: 'start', condition: 'starting' },
      { id: 'a->b', from: 'a', to: 'b', type: 'single', condition: 'primary' },
    ],
    validation_message: '',
    validation_errors: [],
    ...overrides,
  } as SavedWorkflow;
}
