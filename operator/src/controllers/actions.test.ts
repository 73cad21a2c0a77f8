import { describe, expect, it } from 'vitest';
import { ACTION_RULES } from './run/index.js';

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
