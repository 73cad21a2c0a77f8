import { describe, expect, it } from 'vitest';
import { podNameOf, type ArgoApiNode, type ArgoApiWorkflow } from './argo-client.js';

const workflow = (annotations?: Record<string, string>): ArgoApiWorkflow =>
  ({ metadata: { name: 'run-abc', ...(annotations ? { annotations } : {}) }, spec: {} }) as ArgoApiWorkflow;
const node = (over: Partial<ArgoApiNode>): ArgoApiNode =>
  ({ id: 'run-abc-1234', name: 'run-abc.sb-a', displayName: 'sb-a', type: 'Pod', ...over }) as ArgoApiNode;

describe('podNameOf (Argo util.GeneratePodName)', () => {
  it.each([
    // fnv32a("run-abc.sb-a") = 4230148772
    ['v2 (default)', workflow(), node({ templateName: 'sb-a' }), 'run-abc-sb-a-4230148772'],
    [
      'v1 by annotation',
      workflow({ 'workflows.argoproj.io/pod-name-format': 'v1' }),
      node({}),
      'run-abc-1234',
    ],
    ['the root node', workflow(), node({ name: 'run-abc' }), 'run-abc'],
    [
      'an inline template',
      workflow(),
      node({ name: 'run-abc.x.inline', templateName: 't' }),
      `run-abc-547742880`,
    ],
  ])('%s', (_case, wf, n, expected) => {
    expect(podNameOf(wf, n)).toBe(expected);
  });
});
