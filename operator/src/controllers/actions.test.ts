import { describe, expect, it } from 'vitest';
import type { Run } from '@sandflow/crds';
import { ACTION_RULES, actorOf } from './run/index.js';

// spec 2 §4: pause from RUNNING, resume from PAUSED, stop from RUNNING or PAUSED, retry from ERROR,
// restart from any status; restart_from once the run has ended. INIT counts as running (admitted,
// not started yet), WAITING/QUEUED may be stopped before they start.
const STATES = ['WAITING', 'QUEUED', 'INIT', 'RUNNING', 'PAUSED', 'COMPLETED', 'ERROR', 'STOPPED'];
const EXPECTED: Record<string, string[]> = {
  pause: ['INIT', 'RUNNING'],
  resume: ['PAUSED'],
  stop: ['WAITING', 'QUEUED', 'INIT', 'RUNNING', 'PAUSED'],
  retry: ['ERROR'],
  restart: STATES,
  restart_from: ['COMPLETED', 'ERROR', 'STOPPED'],
};

describe('run actions × states', () => {
  for (const [action, allowed] of Object.entries(EXPECTED)) {
    for (const state of STATES) {
      it(`${action} from ${state}: ${allowed.includes(state) ? 'allowed' : 'refused'}`, () => {
        expect(ACTION_RULES[action]!.has(state)).toBe(allowed.includes(state));
      });
    }
  }
});

describe('who an action is credited to (the history entry)', () => {
  const run = (requestedBy?: Run['spec']['requestedBy']): Run => ({
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Run',
    metadata: { name: 'r', namespace: 'ns' },
    spec: { session: 's', owner: 'user-a', ...(requestedBy ? { requestedBy } : {}) },
  });
  it.each<[string, Run['spec']['requestedBy'], string]>([
    ['retry', { retry: 'user-b' }, 'user-b'],
    ['pause', { suspend: 'user-b' }, 'user-b'],
    ['resume', { suspend: 'user-c' }, 'user-c'],
    ['stop', { stop: 'user-b', retry: 'user-c' }, 'user-b'],
    ['restart', { restart: 'user-b' }, 'user-b'],
    ['restart_from', { restartFrom: 'user-b' }, 'user-b'],
    ['retry', { stop: 'user-b' }, 'user-a'], // another action's asker: the owner
    ['retry', undefined, 'user-a'], // asked with kubectl: nobody named
    ['retry', { retry: '' }, 'user-a'],
  ])('%s with requestedBy %j → %s', (action, requestedBy, who) => {
    expect(actorOf(run(requestedBy), action, 'user-a')).toBe(who);
  });
});
