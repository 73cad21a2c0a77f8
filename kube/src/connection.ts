// A cluster manager's connection from its last heartbeat (spec 3 §4), one rule for the operator's
// scheduler, the API's answers and the capacity that caps quotas.

/**
 * Spec 3 §4: closed (not alive) after 3 minutes without a heartbeat, connecting after 2.
 * SANDFLOW_AGENT_LOST_MS shortens both in proportion for tests that kill an agent (the API's agent
 * hub fails an agent's runs after the same time).
 */
export function lostAfterMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.SANDFLOW_AGENT_LOST_MS);
  return Number.isInteger(v) && v > 0 ? v : 180_000;
}

export type Connection = 'connected' | 'connecting' | 'closed';

/** Connection state from the last heartbeat, and when it next changes (for a timed requeue). */
export function connectionOf(
  lastSeen: string | undefined,
  now: Date | number,
  lostMs = lostAfterMs(),
): { alive: boolean; connection: Connection; changesAt: number | undefined } {
  const connectingMs = Math.round((lostMs * 2) / 3);
  const seen = lastSeen ? Date.parse(lastSeen) : NaN;
  if (!Number.isFinite(seen)) return { alive: false, connection: 'closed', changesAt: undefined };
  const age = (typeof now === 'number' ? now : now.getTime()) - seen;
  if (age < connectingMs) return { alive: true, connection: 'connected', changesAt: seen + connectingMs };
  if (age <= lostMs) return { alive: true, connection: 'connecting', changesAt: seen + lostMs + 1 };
  return { alive: false, connection: 'closed', changesAt: undefined };
}
