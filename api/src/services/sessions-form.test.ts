import type { Session } from '@sandflow/crds';
import { describe, expect, it } from 'vitest';
import { nextRunOf } from './sessions-form.js';
import { runAction } from './runs-events.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const session = (
  schedules: NonNullable<Session['spec']['schedules']>,
  status?: Session['status'],
): Session => ({
  apiVersion: 'sandflow.io/v1alpha1',
  kind: 'Session',
  metadata: { name: 's', generation: 2 },
  spec: { name: 's', workflow: 'w', schedules },
  ...(status ? { status } : {}),
});

describe('next run of a session', () => {
  it.each([
    ['a one-off plan ahead', [{ start: '2026-03-11T08:00:00Z' }], '2026-03-11T08:00:00.000Z'],
    ['a one-off plan past', [{ start: '2026-03-01T08:00:00Z' }], null],
    [
      'every 2 hours from an anchor',
      [{ start: '2026-03-10T07:30:00Z', periodic: true, periodicLabel: 'hourly', periodicValue: 2 }],
      '2026-03-10T13:30:00.000Z',
    ],
    [
      'every 3 days, past its end',
      [
        {
          start: '2026-03-01T00:00:00Z',
          periodic: true,
          periodicLabel: 'daily',
          periodicValue: 3,
          end: '2026-03-12T00:00:00Z',
        },
      ],
      null,
    ],
    [
      'monthly: calendar months',
      [{ start: '2026-01-15T09:00:00Z', periodic: true, periodicLabel: 'monthly', periodicValue: 1 }],
      '2026-03-15T09:00:00.000Z',
    ],
    [
      'yearly',
      [{ start: '2024-05-01T00:00:00Z', periodic: true, periodicLabel: 'yearly', periodicValue: 1 }],
      '2026-05-01T00:00:00.000Z',
    ],
    [
      'the soonest of several plans',
      [
        { start: '2026-04-01T00:00:00Z' },
        { start: '2026-03-10T11:59:00Z', periodic: true, periodicLabel: 'minutely', periodicValue: 5 },
      ],
      '2026-03-10T12:04:00.000Z',
    ],
  ] as const)('%s', (_name, schedules, want) => {
    expect(nextRunOf(session(structuredClone(schedules) as never), NOW)).toBe(want);
  });

  it("takes the operator's nextRun once it reconciled this generation, not an older one", () => {
    const plans = [{ start: '2026-03-11T08:00:00Z' }];
    expect(nextRunOf(session(plans, { observedGeneration: 2, nextRun: '2026-03-11T08:00:05Z' }), NOW)).toBe(
      '2026-03-11T08:00:05Z',
    );
    expect(nextRunOf(session(plans, { observedGeneration: 1, nextRun: '2020-01-01T00:00:00Z' }), NOW)).toBe(
      '2026-03-11T08:00:00.000Z',
    );
  });
});

describe('realtime action of a run change (spec 2 §4)', () => {
  it.each([
    ['add', undefined, undefined, 'run.created'],
    ['add', undefined, 'RUNNING', 'run.started'],
    ['update', 'INIT', 'RUNNING', 'run.started'],
    ['update', 'PAUSED', 'RUNNING', 'run.resumed'],
    ['update', 'ERROR', 'RUNNING', 'run.retried'],
    ['update', 'COMPLETED', 'RUNNING', 'run.restarted'],
    ['update', 'STOPPED', 'INIT', 'run.restarted'],
    ['update', 'WAITING', 'QUEUED', 'run.queued'],
    ['update', 'RUNNING', 'COMPLETED', 'run.completed'],
    ['update', 'RUNNING', 'ERROR', 'run.failed'],
    ['update', 'PAUSED', 'STOPPED', 'run.stopped'],
    ['update', 'RUNNING', 'PAUSED', 'run.paused'],
    ['update', 'RUNNING', 'RUNNING', null],
    ['delete', 'COMPLETED', undefined, 'run.deleted'],
  ] as const)('%s %s → %s: %s', (type, before, after, want) => {
    expect(runAction(type, before, after)).toBe(want);
  });
});
