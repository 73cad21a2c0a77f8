import { describe, expect, it } from 'vitest';
import { connectionOf, lostAfterMs } from './connection.js';

const now = Date.parse('2026-11-23T12:00:00Z');
const ago = (ms: number) => new Date(now - ms).toISOString();

describe('connectionOf (spec 3 §4)', () => {
  it.each([
    ['just now', ago(0), 180_000, 'connected', true],
    ['119 s ago', ago(119_000), 180_000, 'connected', true],
    ['120 s ago', ago(120_000), 180_000, 'connecting', true],
    ['180 s ago', ago(180_000), 180_000, 'connecting', true],
    ['181 s ago', ago(181_000), 180_000, 'closed', false],
    ['never', undefined, 180_000, 'closed', false],
    ['unreadable', 'yesterday-ish', 180_000, 'closed', false],
    ['2.5 s ago with a 3 s loss (tests)', ago(2_500), 3_000, 'connecting', true],
    ['3.5 s ago with a 3 s loss (tests)', ago(3_500), 3_000, 'closed', false],
  ])('%s → %s', (_, lastSeen, lostMs, connection, alive) => {
    expect(connectionOf(lastSeen, now, lostMs)).toMatchObject({ connection, alive });
    expect(connectionOf(lastSeen, new Date(now), lostMs).connection).toBe(connection);
  });

  it.each([
    [{}, 180_000],
    [{ SANDFLOW_AGENT_LOST_MS: '3000' }, 3_000],
    [{ SANDFLOW_AGENT_LOST_MS: 'soon' }, 180_000],
    [{ SANDFLOW_AGENT_LOST_MS: '-5' }, 180_000],
  ])('lostAfterMs(%j) = %d', (env, ms) => {
    expect(lostAfterMs(env)).toBe(ms);
  });
});
