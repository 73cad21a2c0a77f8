import { describe, expect, it } from 'vitest';
import { createTerminalPresence, type PresenceDecision } from './terminal-presence.js';

const GRACE = 60_000;
const EXPIRY = 30_000;
const C = 'c1';

/** What replicas do, at a time (ms): `A` is this process, `B` and `C` others. */
type Event =
  | [at: number, 'opened' | 'closed', replica: string]
  | [at: number, 'heartbeat', replica: string, open: string[]]
  | [at: number, 'seen' | 'forget'];

function decideAfter(events: Event[], at: number): PresenceDecision {
  const presence = createTerminalPresence({ self: 'A', graceMs: GRACE, expiryMs: EXPIRY });
  for (const [time, kind, replica, open] of events) {
    if (kind === 'opened') presence.opened(replica, C, time);
    else if (kind === 'closed') presence.closed(replica, C, time);
    else if (kind === 'heartbeat') presence.heartbeat(replica, open, time);
    else if (kind === 'seen') presence.seen(C, time);
    else presence.forget(C);
  }
  return presence.decide(C, at);
}

const keep: PresenceDecision = { action: 'keep' };
const stop: PresenceDecision = { action: 'stop' };
const wait = (stopAt: number): PresenceDecision => ({ action: 'wait', stopAt });
const recheck = (recheckAt: number): PresenceDecision => ({ action: 'keep', recheckAt });

describe('the grace rule across replicas', () => {
  it.each<[string, Event[], number, PresenceDecision]>([
    // One process (what embedded mode keeps on its own timer too).
    ['a terminal open here: kept however long', [[0, 'opened', 'A']], 10 * GRACE, keep],
    [
      'closed here, within grace',
      [
        [0, 'opened', 'A'],
        [1000, 'closed', 'A'],
      ],
      1000 + GRACE - 1,
      wait(1000 + GRACE),
    ],
    [
      'closed here, grace over: stop',
      [
        [0, 'opened', 'A'],
        [1000, 'closed', 'A'],
      ],
      1000 + GRACE,
      stop,
    ],
    ['made here and never opened: stop after grace', [[0, 'closed', 'A']], GRACE, stop],
    // The reconnect through another replica that the single-process timer got wrong.
    [
      'closed here, reopened on B within grace (B heard since): kept',
      [
        [0, 'opened', 'A'],
        [1000, 'closed', 'A'],
        [5000, 'opened', 'B'],
        [40_000, 'heartbeat', 'B', [C]],
      ],
      1000 + GRACE + 1,
      recheck(40_000 + EXPIRY),
    ],
    [
      'closed on A and on B: B stops it after grace, A only after grace + expiry',
      [
        [0, 'opened', 'A'],
        [1000, 'closed', 'A'],
        [5000, 'opened', 'B'],
        [9000, 'closed', 'B'],
      ],
      9000 + GRACE,
      wait(9000 + GRACE + EXPIRY),
    ],
    [
      'closed on A and on B, grace + expiry over: A stops it (B did not)',
      [
        [0, 'opened', 'A'],
        [1000, 'closed', 'A'],
        [5000, 'opened', 'B'],
        [9000, 'closed', 'B'],
      ],
      9000 + GRACE + EXPIRY,
      stop,
    ],
    [
      'B closed first, A last: A stops it after grace',
      [
        [0, 'opened', 'B'],
        [1000, 'opened', 'A'],
        [2000, 'closed', 'B'],
        [3000, 'closed', 'A'],
      ],
      3000 + GRACE,
      stop,
    ],
    [
      'open on A and on B, B closes: kept (A holds it)',
      [
        [0, 'opened', 'B'],
        [1000, 'opened', 'A'],
        [2000, 'closed', 'B'],
      ],
      2000 + GRACE + EXPIRY,
      keep,
    ],
    [
      'open on A and on B, A closes while B is alive: kept until B could expire',
      [
        [0, 'opened', 'B'],
        [1000, 'opened', 'A'],
        [2000, 'closed', 'A'],
      ],
      10_000,
      recheck(EXPIRY),
    ],
    [
      'open on A and on B, A closes, then B dies: stop grace after B expired',
      [
        [0, 'opened', 'B'],
        [1000, 'opened', 'A'],
        [2000, 'closed', 'A'],
      ],
      EXPIRY + GRACE,
      stop,
    ],
    // A replica that dies holding a terminal.
    [
      'B died with a terminal open: its terminal is gone at expiry, stop after grace',
      [
        [0, 'opened', 'B'],
        [10_000, 'heartbeat', 'B', [C]],
      ],
      10_000 + EXPIRY + GRACE,
      stop,
    ],
    [
      'B died with a terminal open, within grace after its expiry',
      [
        [0, 'opened', 'B'],
        [10_000, 'heartbeat', 'B', [C]],
      ],
      10_000 + EXPIRY,
      wait(10_000 + EXPIRY + GRACE),
    ],
    [
      'B alive (heartbeats) with a terminal open: kept',
      [
        [0, 'opened', 'B'],
        [10_000, 'heartbeat', 'B', [C]],
        [100_000, 'heartbeat', 'B', [C]],
      ],
      100_000 + EXPIRY - 1,
      recheck(100_000 + EXPIRY),
    ],
    [
      'B dead, C alive with a terminal open: kept',
      [
        [0, 'opened', 'B'],
        [0, 'opened', 'C'],
        [200_000, 'heartbeat', 'C', [C]],
      ],
      200_000,
      recheck(200_000 + EXPIRY),
    ],
    [
      "B's close was lost: its heartbeat without the container counts as the close",
      [
        [0, 'opened', 'B'],
        [10_000, 'heartbeat', 'B', []],
      ],
      10_000 + GRACE,
      wait(10_000 + GRACE + EXPIRY),
    ],
    [
      "B's open was lost: its heartbeat listing the container counts as the open",
      [
        [0, 'closed', 'A'],
        [10_000, 'heartbeat', 'B', [C]],
      ],
      10_000 + EXPIRY - 1,
      recheck(10_000 + EXPIRY),
    ],
    // Containers found at start, or made on another replica.
    ['found at start, no news: stop after grace + expiry', [[0, 'seen']], GRACE + EXPIRY, stop],
    ['found at start, within grace + expiry', [[0, 'seen']], GRACE + EXPIRY - 1, wait(GRACE + EXPIRY)],
    [
      "found at start, a replica's heartbeat says it is open: kept",
      [
        [0, 'seen'],
        [80_000, 'heartbeat', 'B', [C]],
      ],
      GRACE + EXPIRY,
      recheck(80_000 + EXPIRY),
    ],
    [
      'made on B, never opened: B stops it; A after grace + expiry',
      [[0, 'closed', 'B']],
      GRACE,
      wait(GRACE + EXPIRY),
    ],
    [
      'stopped (forgotten): nothing to do',
      [
        [0, 'closed', 'A'],
        [10, 'forget'],
      ],
      GRACE,
      keep,
    ],
    ['unknown container: nothing to do', [], GRACE, keep],
  ])('%s', (_case, events, at, decision) => {
    expect(decideAfter(events, at)).toEqual(decision);
  });

  it('a repeated close from another replica does not postpone the stop of one closed here', () => {
    const presence = createTerminalPresence({ self: 'A', graceMs: GRACE, expiryMs: EXPIRY });
    presence.opened('A', C, 0);
    presence.closed('A', C, 1000);
    presence.closed('B', C, 500);
    expect(presence.decide(C, 1000 + GRACE)).toEqual(stop);
    expect(presence.containers()).toEqual([C]);
  });
});
