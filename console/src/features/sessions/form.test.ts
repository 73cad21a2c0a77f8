import { describe, expect, it } from 'vitest';
import {
  canSubmit,
  emptyForm,
  firstInvalidPlan,
  fromDetail,
  newPlan,
  normaliseEmails,
  resourceValid,
  toBody,
  toSchedules,
  type SessionForm,
} from './form';
import { sessionDetail } from './testing';

const ready = (over: Partial<SessionForm> = {}): SessionForm => ({
  ...emptyForm(),
  name: 'nightly',
  workflow_uuid: 'w-1',
  group: 'g-1',
  ...over,
});

describe('the session form rules (spec 2 §5)', () => {
  it.each([
    ['cpu', 0.5, true],
    ['cpu', 1.5, true],
    ['cpu', 0.7, false],
    ['cpu', 0, false],
    ['memory', 2, true],
    ['memory', 0.25, false],
    ['disk', 0.1, true],
    ['disk', 0.3, true],
    ['disk', 1.05, false],
    ['disk', 0.05, false],
    ['disk', Number.NaN, false],
  ] as const)('%s %d is valid: %s', (kind, value, valid) => expect(resourceValid(kind, value)).toBe(valid));

  it.each([
    ['complete', ready(), false, true],
    ['no name', ready({ name: '  ' }), false, false],
    ['no workflow', ready({ workflow_uuid: '' }), false, false],
    ['no group', ready({ group: '' }), false, false],
    ['workflow loading', ready(), true, false],
    ['cpu off its step', ready({ resources: { a: { cpu: 0.7, memory: 0.5, disk: 0.1 } } }), false, false],
    [
      'resources on their steps',
      ready({ resources: { a: { cpu: 2, memory: 1.5, disk: 0.4 } } }),
      false,
      true,
    ],
  ])('Save with %s: %s', (_case, form, loading, allowed) => expect(canSubmit(form, loading)).toBe(allowed));

  const plan = (over: Partial<ReturnType<typeof newPlan>>) => ({ ...newPlan(), ...over });
  it.each([
    [
      'until before start',
      plan({ time: '2026-12-01T10:00', periodic: true, isUntil: true, until: '2026-11-30T10:00' }),
      0,
    ],
    [
      'until after start',
      plan({ time: '2026-12-01T10:00', periodic: true, isUntil: true, until: '2026-12-02T10:00' }),
      -1,
    ],
    ['not periodic', plan({ time: '2026-12-01T10:00', isUntil: true, until: '2026-11-30T10:00' }), -1],
    ['until off', plan({ time: '2026-12-01T10:00', periodic: true, until: '2026-11-30T10:00' }), -1],
  ])('a schedule with %s is found invalid at %d', (_case, schedule, index) =>
    expect(firstInvalidPlan(ready({ schedules: [schedule] }))).toBe(index),
  );

  it('sends only schedules with a start, the end only when periodic and until are set', () => {
    const sent = toSchedules([
      plan({ time: '' }),
      plan({ time: '2026-12-01T10:00' }),
      plan({
        time: '2026-12-01T10:00',
        periodic: true,
        periodicLabel: 'weekly',
        periodicValue: '2',
        until: '2026-12-09T10:00',
      }),
      plan({
        time: '2026-12-01T10:00',
        periodic: true,
        periodicValue: '-3x',
        isUntil: true,
        until: '2026-12-09T10:00',
      }),
    ]);
    expect(sent).toEqual([
      {
        start: new Date('2026-12-01T10:00').toISOString(),
        periodic: false,
        periodic_label: null,
        periodic_value: 0,
      },
      {
        start: new Date('2026-12-01T10:00').toISOString(),
        periodic: true,
        periodic_label: 'weekly',
        periodic_value: 2,
      },
      {
        start: new Date('2026-12-01T10:00').toISOString(),
        periodic: true,
        periodic_label: 'daily',
        periodic_value: 0,
        end: new Date('2026-12-09T10:00').toISOString(),
      },
    ]);
  });

  it('trims, lowercases and de-duplicates e-mails', () =>
    expect(normaliseEmails([' A@x.io', 'a@x.io ', '', 'b@Y.io'])).toEqual(['a@x.io', 'b@y.io']));

  it('builds the save payload: millicores, MB, one cluster, restarts as attempts', () => {
    const body = toBody(
      ready({
        resources: { a: { cpu: 1.5, memory: 2, disk: 0.5 } },
        restartOnFail: true,
        restarts: 2,
        notify: true,
        emails: ['X@y.io ', 'x@y.io'],
        cluster: 'c-1',
        type: 'event',
        events: [plan({ url: ' http://hook ', expect: '200' }), plan({ url: '' })],
      }),
      's-1',
    );
    expect(body).toEqual({
      uuid: 's-1',
      name: 'nightly',
      workflow_uuid: 'w-1',
      type: 'event',
      schedules: [],
      events: [
        { url: 'http://hook', expect: '200', periodic: false, periodic_label: null, periodic_value: 0 },
      ],
      attempts: 3,
      notifications: ['x@y.io'],
      notify_group: false,
      notify_organization: false,
      group: 'g-1',
      session_variables: {},
      sandbox_resources: { a: { cpu: 1500, memory: 2048, disk: 512 } },
      cluster_pref: ['c-1'],
      has_cluster_pref: true,
    });
    expect(toBody(ready()).attempts).toBe(1);
    expect(toBody(ready()).has_cluster_pref).toBe(false);
  });

  it('reads a saved session back into the form unchanged', () => {
    const form = ready({
      resources: { a: { cpu: 1.5, memory: 2, disk: 0.5 } },
      restartOnFail: true,
      restarts: 3,
      notify: true,
      emails: ['x@y.io'],
      cluster: 'c-1',
      schedules: [
        plan({
          time: '2026-12-01T10:00',
          periodic: true,
          periodicLabel: 'hourly',
          periodicValue: '4',
          isUntil: true,
          until: '2026-12-02T10:00',
        }),
      ],
    });
    const body = toBody(form, 's-1');
    // What GET /schedule/{uuid} answers for that body (the API fills what a body may leave out).
    const detail = sessionDetail({
      ...body,
      uuid: 's-1',
      schedules: body.schedules.map((e) => ({
        ...e,
        periodic: e.periodic ?? false,
        periodic_label: e.periodic_label ?? null,
        periodic_value: e.periodic_value ?? 0,
        end: e.end ?? null,
      })),
      events: [],
    });
    const back = fromDetail(detail, 'schedule');
    expect(back).toEqual(form);
  });
});
