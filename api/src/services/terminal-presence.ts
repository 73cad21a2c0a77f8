/**
 * Who has a terminal open on which builder container, across API replicas (cluster mode),
 * and so when a container nobody uses may be stopped. Pure: fed the replica bus's messages
 * and this process's own terminal events with the time they happened, it answers for a
 * container at a given time whether to keep it, stop it now, or look again later.
 *
 * The rules (times are this process's clock, never another replica's):
 * - a container is in use while some replica that is alive has a terminal open on it: this
 *   process always counts as alive, another replica for `expiryMs` after it was last heard;
 * - the container that nobody uses stops `graceMs` after its last terminal closed. When the
 *   last one closed here this process stops it then; when it closed on another replica that
 *   replica does, and this process only after a further `expiryMs` (in case that one died
 *   before its timer fired), finding it already stopped in the normal case;
 * - a replica not heard for `expiryMs` is dead: its terminals are gone from the moment it
 *   expired, the container stops `graceMs` after that;
 * - a container seen without any news (at start, or one another replica made) waits
 *   `graceMs + expiryMs`: long enough to hear the heartbeats of replicas holding it.
 */

export type PresenceDecision =
  | {
      action: 'keep';
      /** When to look again (a remote holder may expire then), if ever. */ recheckAt?: number;
    }
  | { action: 'wait'; stopAt: number }
  | { action: 'stop' };

interface ContainerState {
  /** Replicas with a terminal open on the container (this one included, by its id). */
  holders: Set<string>;
  /** When it was last left without a terminal, as far as this process knows, and by whom. */
  closedAt: number;
  closedHere: boolean;
}

export interface TerminalPresence {
  /** A terminal opened on `replica` (this process or another). */
  opened(replica: string, container: string, now: number): void;
  /** Its last terminal on `replica` closed (or the container was made there and not opened). */
  closed(replica: string, container: string, now: number): void;
  /** A replica's heartbeat: alive, with terminals open on exactly these containers. */
  heartbeat(replica: string, open: readonly string[], now: number): void;
  /** A container this process found without news of it (at start): the longest wait. */
  seen(container: string, now: number): void;
  /** Stopped (here or elsewhere): nothing to decide about it anymore. */
  forget(container: string): void;
  decide(container: string, now: number): PresenceDecision;
  /** The containers this process keeps a state for. */
  containers(): string[];
}

export function createTerminalPresence(options: {
  self: string;
  graceMs: number;
  expiryMs: number;
}): TerminalPresence {
  const { self, graceMs, expiryMs } = options;
  const states = new Map<string, ContainerState>();
  const lastHeard = new Map<string, number>();

  const stateOf = (container: string, now: number) => {
    let state = states.get(container);
    if (!state) {
      state = { holders: new Set(), closedAt: now, closedHere: false };
      states.set(container, state);
    }
    return state;
  };

  const heard = (replica: string, now: number) => {
    if (replica !== self) lastHeard.set(replica, Math.max(now, lastHeard.get(replica) ?? now));
  };

  /** Until when a holder counts as alive. */
  const aliveUntil = (replica: string) =>
    replica === self ? Infinity : (lastHeard.get(replica) ?? -Infinity) + expiryMs;

  const release = (state: ContainerState, replica: string, now: number) => {
    if (!state.holders.delete(replica)) return;
    const alive = [...state.holders].some((holder) => aliveUntil(holder) > now);
    if (alive) return;
    state.closedAt = now;
    state.closedHere = replica === self;
  };

  return {
    opened(replica, container, now) {
      heard(replica, now);
      stateOf(container, now).holders.add(replica);
    },
    closed(replica, container, now) {
      heard(replica, now);
      const state = states.get(container);
      if (!state) {
        states.set(container, { holders: new Set(), closedAt: now, closedHere: replica === self });
        return;
      }
      if (state.holders.has(replica)) return release(state, replica, now);
      // Made there (no terminal yet), or a repeated message: counts as a close unless in use.
      if ([...state.holders].some((holder) => aliveUntil(holder) > now) || now <= state.closedAt) return;
      state.closedAt = now;
      state.closedHere = replica === self;
    },
    heartbeat(replica, open, now) {
      heard(replica, now);
      const listed = new Set(open);
      for (const container of listed) stateOf(container, now).holders.add(replica);
      // A close whose message was lost: the heartbeat no longer lists it.
      for (const [container, state] of states)
        if (!listed.has(container) && state.holders.has(replica)) release(state, replica, now);
    },
    seen(container, now) {
      stateOf(container, now);
    },
    forget(container) {
      states.delete(container);
    },
    containers: () => [...states.keys()],
    decide(container, now) {
      const state = states.get(container);
      if (!state) return { action: 'keep' };
      let stopAt = state.closedAt + graceMs + (state.closedHere ? 0 : expiryMs);
      let recheckAt: number | undefined;
      let inUse = false;
      for (const holder of state.holders) {
        const until = aliveUntil(holder);
        if (until > now) {
          inUse = true;
          if (until !== Infinity) recheckAt = Math.min(recheckAt ?? Infinity, until);
        } else {
          // Dead: its terminal closed when it expired; any survivor may stop the container.
          stopAt = Math.max(stopAt, until + graceMs);
        }
      }
      if (inUse) return recheckAt === undefined ? { action: 'keep' } : { action: 'keep', recheckAt };
      return now >= stopAt ? { action: 'stop' } : { action: 'wait', stopAt };
    },
  };
}
