// Event sessions: one poller per event plan of every event session, in the leader only (it lives in
// the controllers of one leadership term), so several API or operator replicas never poll twice.
// A plan GETs its URL every periodicValue × periodicLabel (every minute when not periodic) until its
// end, and starts a Run when the answer turns to matching `expect` — the first poll that matches, or
// one that matches after one that did not — so a URL that keeps answering the same starts one run.
import { randomUUID } from 'node:crypto';
import type { Session } from '@sandflow/crds';
import { keyOf, type EventType } from '@sandflow/kube';
import type { Context } from '../context.js';
import { createRun } from './session.js';

export type Period = 'minutely' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';
export const PERIOD_MS: Record<Period, number> = {
  minutely: 60_000,
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
  monthly: 30 * 86_400_000,
  yearly: 365 * 86_400_000,
};
const BODY_LIMIT = 1 << 20;
const TIMEOUT_MS = 10_000;

type EventPlan = NonNullable<Session['spec']['events']>[number];

/**
 * Whether an answer matches `expect`: three digits are a status code it must have; other text must
 * occur in the body (its first MB); nothing expected: any 2xx.
 */
export function matches(expect: string | undefined, status: number, body: string): boolean {
  const wanted = (expect ?? '').trim();
  if (!wanted) return status >= 200 && status < 300;
  if (/^\d{3}$/.test(wanted)) return status === Number(wanted);
  return body.includes(expect!);
}

async function poll(url: string, expect: string | undefined): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'follow' });
  const needsBody = !!expect?.trim() && !/^\d{3}$/.test(expect.trim());
  let body = '';
  if (needsBody && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    for (let read = 0; read < BODY_LIMIT;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
      body += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => undefined);
  } else await res.body?.cancel().catch(() => undefined);
  return matches(expect, res.status, body);
}

interface Poller {
  /** The plans as they were when the poller started: a change of them restarts it. */
  plans: string;
  timers: NodeJS.Timeout[];
}

export function startEventPollers(
  ctx: Context,
  options: { periodMs?: Partial<Record<Period, number>> } = {},
) {
  const periods = { ...PERIOD_MS, ...options.periodMs };
  const pollers = new Map<string, Poller>();
  let stopped = false;

  const wanted = (s: Session) =>
    !s.metadata.deletionTimestamp && s.spec.type === 'event' && !s.spec.suspend ? (s.spec.events ?? []) : [];

  function every(plan: EventPlan): number {
    if (!plan.periodic || !plan.periodicValue || plan.periodicValue < 1) return periods.minutely;
    return periods[(plan.periodicLabel ?? 'minutely') as Period] * plan.periodicValue;
  }

  function start(key: string, plans: EventPlan[]) {
    const poller: Poller = { plans: JSON.stringify(plans), timers: [] };
    pollers.set(key, poller);
    plans.forEach((plan, i) => {
      let matched = false;
      const tick = async () => {
        if (stopped || pollers.get(key) !== poller) return;
        if (plan.end && Date.parse(plan.end) <= Date.now()) return; // past its end: polls no more
        let now = false;
        try {
          now = await poll(plan.url ?? '', plan.expect);
        } catch (error) {
          ctx.log.info({ session: key, url: plan.url, err: error }, 'event poll failed');
        }
        if (now && !matched && !stopped && pollers.get(key) === poller) {
          const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
          const session = ctx.caches.sessions.get(name, namespace);
          if (session && wanted(session).length) {
            await createRun(ctx, session, randomUUID(), 'event').catch((error: unknown) =>
              ctx.log.error({ session: key, err: error }, 'starting a run for an event failed'),
            );
            ctx.log.info({ session: key, url: plan.url, plan: i }, 'event matched: run started');
          }
        }
        matched = now;
        if (!stopped && pollers.get(key) === poller)
          poller.timers[i] = setTimeout(() => void tick(), every(plan));
      };
      poller.timers[i] = setTimeout(() => void tick(), 0);
    });
  }

  function drop(key: string) {
    const poller = pollers.get(key);
    if (!poller) return;
    for (const t of poller.timers) clearTimeout(t);
    pollers.delete(key);
  }

  return {
    /** Follows a change of a session seen by the watch. */
    update(type: EventType, session: Session) {
      if (stopped) return;
      const key = keyOf(session);
      const plans = type === 'delete' ? [] : wanted(session);
      const current = pollers.get(key);
      if (current && current.plans === JSON.stringify(plans)) return;
      drop(key);
      if (plans.length) start(key, plans);
    },
    /** The sessions being polled (namespace/name). */
    polled: () => [...pollers.keys()],
    stop() {
      stopped = true;
      for (const key of [...pollers.keys()]) drop(key);
    },
  };
}

export type EventPollers = ReturnType<typeof startEventPollers>;
