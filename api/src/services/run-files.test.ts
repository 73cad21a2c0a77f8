import type { ArgoApiNode, ArgoApiWorkflow } from '@sandflow/kube';
import { describe, expect, it } from 'vitest';
import { stepNodeOf } from './run-files.js';

const node = (id: string, name: string, type: string, children: string[] = []): ArgoApiNode =>
  ({ id, name, displayName: name, type, children }) as ArgoApiNode;
// A run of three sandboxes: `plain` (one Pod), `flaky` (a Retry with two attempts) and `split_me`
// (dynamic instances: a TaskGroup of two Pods, the second retried).
const nodes = [
  node('w', 'w', 'DAG', ['p', 'r', 'g']),
  node('p', 'w.sb-plain', 'Pod'),
  node('r', 'w.sb-flaky', 'Retry', ['r0', 'r1']),
  node('r0', 'w.sb-flaky(0)', 'Pod'),
  node('r1', 'w.sb-flaky(1)', 'Pod'),
  node('g', 'w.sb-split-me', 'TaskGroup', ['g0', 'g1', 'next']),
  node('g0', 'w.sb-split-me(0:a)', 'Pod'),
  node('g1', 'w.sb-split-me(1:b)', 'Retry', ['g1a']),
  node('g1a', 'w.sb-split-me(1:b)(0)', 'Pod'),
  node('next', 'w.sb-after', 'Pod'),
];
const wf = {
  metadata: { name: 'w' },
  spec: {},
  status: { nodes: Object.fromEntries(nodes.map((n) => [n.id, n])) },
} as unknown as ArgoApiWorkflow;

describe('stepNodeOf: the Pod behind a sandbox or dynamic-instance name', () => {
  it.each([
    ['a plain sandbox', 'plain', 'plain', 'p'],
    ['the last attempt of a retried one', 'flaky', 'flaky', 'r1'],
    ['the first instance', 'split_me', 'split_me(0)', 'g0'],
    ['a retried instance (its last attempt)', 'split_me', 'split_me(1)', 'g1a'],
    ['an instance out of range', 'split_me', 'split_me(2)', undefined],
    ['a TaskGroup itself (no single Pod)', 'split_me', 'split_me', undefined],
    ['an instance of a sandbox without instances', 'plain', 'plain(0)', undefined],
    ['another sandbox’s instance name', 'plain', 'split_me(0)', undefined],
    ['an unknown sandbox', 'nobody', 'nobody', undefined],
  ])('%s', (_case, sandbox, name, expected) => {
    expect(stepNodeOf(wf, sandbox, name)?.id).toBe(expected);
  });
});
