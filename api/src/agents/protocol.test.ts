import { describe, expect, it } from 'vitest';
import { MAX_RESOURCES, agentMessageSchema } from './protocol.js';

const resources = { cpu: 4000, memory: 8192, disk: 100_000, architecture: 'amd64' };
const hello = { type: 'hello', version: '0.1.0', label: 'box', resources, workflows: [] };

describe('agent messages', () => {
  it.each([
    ['a hello', hello],
    ['a beat', { type: 'beat', resources }],
    ['the largest resources', { type: 'beat', resources: { ...MAX_RESOURCES, architecture: 'arm64' } }],
    [
      'a status',
      { type: 'status', seq: 1, namespace: 'sf-a-b', name: 'run-1', status: { phase: 'Running', nodes: {} } },
    ],
    ['a deletion', { type: 'deleted', namespace: 'sf-a-b', name: 'run-1' }],
    ['an answer head', { type: 'http-head', id: 1, status: 200, headers: { 'content-type': 'text/plain' } }],
    ['an answer end with an error', { type: 'http-end', id: 1, error: 'gone' }],
  ])('takes %s', (_name, message) => {
    expect(agentMessageSchema.safeParse(message).success).toBe(true);
  });

  it.each([
    [
      'absurd cpu',
      { type: 'beat', resources: { ...resources, cpu: MAX_RESOURCES.cpu + 1 } },
      'resources.cpu',
    ],
    [
      'absurd memory',
      { type: 'beat', resources: { ...resources, memory: MAX_RESOURCES.memory + 1 } },
      'resources.memory',
    ],
    ['absurd disk', { ...hello, resources: { ...resources, disk: 1e15 } }, 'resources.disk'],
    ['no cpu at all', { type: 'beat', resources: { ...resources, cpu: 0 } }, 'resources.cpu'],
    ['negative memory', { type: 'beat', resources: { ...resources, memory: -1 } }, 'resources.memory'],
    ['fractional cpu', { type: 'beat', resources: { ...resources, cpu: 1.5 } }, 'resources.cpu'],
    [
      'an unknown architecture',
      { type: 'beat', resources: { ...resources, architecture: 'z80' } },
      'resources.architecture',
    ],
    ['a label too long', { ...hello, label: 'x'.repeat(254) }, 'label'],
    [
      'too many held workflows',
      { ...hello, workflows: Array(10_001).fill({ namespace: 'a', name: 'b' }) },
      'workflows',
    ],
    [
      'a namespace that is no name',
      { type: 'status', seq: 1, namespace: '../etc', name: 'run-1', status: {} },
      'namespace',
    ],
    ['a status without a status', { type: 'status', seq: 1, namespace: 'a', name: 'b' }, 'status'],
    ['an answer status out of range', { type: 'http-head', id: 1, status: 700, headers: {} }, 'status'],
    ['an unknown type', { type: 'shell', command: 'rm -rf /' }, 'type'],
  ])('refuses %s (at %s)', (_name, message, field) => {
    const r = agentMessageSchema.safeParse(message);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path.join('.')).toBe(field);
  });
});
