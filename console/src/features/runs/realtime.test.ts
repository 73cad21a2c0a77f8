import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { runKeys, sessionKeys } from '../sessions/queries';
import { run, sessionItem } from '../sessions/testing';
import type { Run, SessionItem } from '../sessions/types';
import { applyRunMessage, runDataOf, runEventOf } from './realtime';

const NOW = '2026-11-23T09:00:00.000Z';

function cache(runs: Run[] | undefined, session: Partial<SessionItem> = {}) {
  const client = new QueryClient();
  client.setQueryData(sessionKeys.list, [
    sessionItem({ uuid: 's', run_count: runs?.length ?? 1, ...session }),
  ]);
  if (runs) client.setQueryData(sessionKeys.runs('s'), runs);
  for (const r of runs ?? []) client.setQueryData(runKeys.one(r.uuid), r);
  const read = () => ({
    session: client.getQueryData<SessionItem[]>(sessionKeys.list)![0]!,
    runs: client.getQueryData<Run[]>(sessionKeys.runs('s')),
    run: client.getQueryData<Run>(runKeys.one('r')),
  });
  return { client, read };
}

describe('realtime run messages (spec 2 §4)', () => {
  it.each([
    ['started', 'RUNNING', { start: NOW }, { running: true, run_count: 1 }],
    ['completed', 'COMPLETED', { stop: NOW }, { running: false, error: false }],
    ['failed', 'ERROR', { stop: NOW }, { running: false, error: true }],
    ['stop', 'STOPPED', {}, { running: false }],
    ['pause', 'PAUSED', {}, { running: false }],
    ['resume', 'RUNNING', {}, { running: true }],
    ['restart', 'RUNNING', {}, { running: true }],
    ['retry', 'RUNNING', { stop: '0001-01-01T00:00:00Z' }, { running: true }],
  ])('%s: the run turns %s and the session follows', (action, status, runChange, sessionChange) => {
    const before = run({ uuid: 'r', status: 'RUNNING', stop: '2026-11-23T08:00:00Z' });
    const { client, read } = cache([before], { running: action !== 'started' });
    expect(applyRunMessage(client, { action, uuid: 's', run_uuid: 'r' }, NOW)).toBe(true);
    const after = read();
    expect(after.runs![0]).toEqual({ ...before, status, ...runChange });
    expect(after.run).toEqual({ ...before, status, ...runChange });
    expect(after.session).toMatchObject(sessionChange);
  });

  it('adds a started run the list did not have and counts it once', () => {
    const { client, read } = cache([run({ uuid: 'old' })], { run_count: 1, has_run_list: true });
    applyRunMessage(client, { action: 'started', uuid: 's', run_uuid: 'r' }, NOW);
    applyRunMessage(client, { action: 'started', uuid: 's', run_uuid: 'r' }, NOW);
    const after = read();
    expect(after.runs!.map((r) => [r.uuid, r.status])).toEqual([
      ['r', 'RUNNING'],
      ['old', 'COMPLETED'],
    ]);
    expect(after.session).toMatchObject({ run_count: 2, running: true });
  });

  it('a deleted run recomputes running, error, count and has-runs from the runs left', () => {
    const { client, read } = cache(
      [
        run({ uuid: 'r', status: 'RUNNING', start: '2026-11-23T08:00:00Z' }),
        run({ uuid: 'e', status: 'ERROR', start: '2026-11-22T08:00:00Z' }),
      ],
      { running: true, error: false, run_count: 2 },
    );
    applyRunMessage(client, { action: 'delete', uuid: 's', run_uuid: 'r' });
    expect(read().session).toMatchObject({ running: false, error: true, run_count: 1, has_run_list: true });
    applyRunMessage(client, { action: 'delete', uuid: 's', run_uuid: 'e' });
    expect(read().session).toMatchObject({ running: false, error: false, run_count: 0, has_run_list: false });
    expect(read().runs).toEqual([]);
  });

  it.each([
    [{ action: 'sandbox', uuid: 's', run_uuid: 'r' }],
    [{ action: 'completed', uuid: 's' }],
    [{ action: 'completed', run_uuid: 'r' }],
  ])('leaves the cache alone for %o', (data) => {
    const { client, read } = cache([run({ uuid: 'r', status: 'RUNNING' })]);
    const before = read();
    expect(applyRunMessage(client, data)).toBe(false);
    expect(read()).toEqual(before);
  });

  it('takes the phase and times the message carries', () => {
    const { client, read } = cache([run({ uuid: 'r', status: 'RUNNING' })]);
    const data = runDataOf(
      JSON.stringify({
        action: 'run.completed',
        data: {
          uuid: 's',
          run_uuid: 'r',
          status: 'COMPLETED',
          start: '2026-11-23T08:00:00Z',
          stop: '2026-11-23T08:30:00Z',
        },
      }),
    )!;
    applyRunMessage(client, data, NOW);
    expect(read().run).toMatchObject({
      status: 'COMPLETED',
      start: '2026-11-23T08:00:00Z',
      stop: '2026-11-23T08:30:00Z',
    });
  });

  it('counts a run announced as created, then started, once while the runs list is not loaded', () => {
    const { client, read } = cache(undefined, { run_count: 0, has_run_list: false });
    applyRunMessage(client, { action: 'run.created', uuid: 's', run_uuid: 'r' }, NOW);
    applyRunMessage(client, { action: 'run.initializing', uuid: 's', run_uuid: 'r' }, NOW);
    applyRunMessage(client, { action: 'run.started', uuid: 's', run_uuid: 'r' }, NOW);
    expect(read().session).toMatchObject({ run_count: 1, has_run_list: true, running: true });
  });

  it.each([['not json'], [JSON.stringify({ action: 'x' })], [42]])('ignores message data %j', (raw) =>
    expect(runDataOf(raw)).toBeNull(),
  );

  it.each([
    ['run.retried', 'retry'],
    ['run.queued', 'queued'],
    ['Started', 'started'],
    ['played', 'started'],
    ['FAILED', 'failed'],
    ['paused', 'pause'],
    ['workflow', null],
  ])('reads the action %s as %s', (action, event) => expect(runEventOf(action)).toBe(event));
});
