// A check of the handles the console gives React Flow before it draws a node (bench:dashboard and
// bench:editor print what the browser measures).
import type { Page } from 'playwright-core';

/**
 * Where a drawn node's handles are, relative to the node, in flow units (what React Flow measures):
 * to check the handles the console gives each node beforehand (console/src/features/runs/graph.ts
 * RUN_NODE_HANDLES, console/src/features/workflows/graph/flow.ts sandboxHandles).
 */
export async function handleOffsets(page: Page, type: string) {
  return (await page.evaluate(`(() => {
    const node = document.querySelector('.react-flow__node-${type}');
    const box = node.getBoundingClientRect();
    const zoom = box.width / node.offsetWidth;
    return [...node.querySelectorAll('.react-flow__handle')].map((h) => {
      const r = h.getBoundingClientRect();
      const at = (v) => Math.round((v / zoom) * 10) / 10;
      return (h.classList.contains('source') ? 'source' : 'target') +
        ' x ' + at(r.left - box.left) + ' y ' + at(r.top - box.top) + ' ' + at(r.width) + '×' + at(r.height);
    }).join(', ');
  })()`)) as string;
}
