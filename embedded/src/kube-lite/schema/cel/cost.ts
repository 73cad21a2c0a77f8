/**
 * A runtime cost limit for rule evaluation, like cel-go's ActualCost with kube-apiserver's
 * per-call limit. cel-js has no cost tracking, so every evaluated expression node costs 1 (the
 * unit cel-go charges too) and the Kubernetes library functions charge for the size they walk.
 */
import type { Environment } from '@marcbachmann/cel-js';

/** What cel-go reports when a program exceeds its cost limit; apiextensions matches on it. */
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_MESSAGE);
  }
}

interface Meter {
  remaining: number;
  exceeded: boolean;
}

// Evaluation is synchronous, so the meter of the evaluation under way can be module state.
let current: Meter | undefined;

/** Charges `units` to the evaluation under way; throws once the limit is passed. */
export function chargeCost(units: number): void {
  if (!current) return;
  current.remaining -= Math.ceil(units);
  if (current.remaining < 0) {
    current.exceeded = true;
    throw new CostLimitExceeded();
  }
}

/**
 * Runs `evaluate` under a cost limit and returns its result and cost. An error a macro swallowed
 * (exists() absorbs errors of other elements) cannot hide an exceeded limit: it is checked last.
 */
export function metered<T>(limit: number, evaluate: () => T): { value: T; cost: number } {
  const meter: Meter = { remaining: limit, exceeded: false };
  const outer = current;
  current = meter;
  try {
    const value = evaluate();
    if (meter.exceeded) throw new CostLimitExceeded();
    return { value, cost: limit - meter.remaining };
  } catch (e) {
    if (meter.exceeded) throw new CostLimitExceeded();
    throw e;
  } finally {
    current = outer;
  }
}

const METERED = Symbol.for('sandflow.kube-lite.cel-cost');

/**
 * cel-js evaluates every child node through its evaluator's `run`; wrapping that method is the
 * one place a per-node charge can be made. The evaluator class is not exported, so a function
 * registered on a throw-away clone (its handlers run with the evaluator as `this`) hands over
 * its prototype once.
 */
export function meterEvaluator(env: Environment): Environment {
  let proto: Record<PropertyKey, unknown> | undefined;
  env
    .clone()
    .registerFunction('kubeLiteCostProbe(): bool', function (this: object) {
      proto = Object.getPrototypeOf(this) as Record<PropertyKey, unknown>;
      return true;
    })
    .evaluate('kubeLiteCostProbe()', {});
  if (!proto || typeof proto.run !== 'function')
    throw new Error('cel-js evaluator has no run method to meter');
  if (!proto[METERED]) {
    const run = proto.run as (this: unknown, ...args: unknown[]) => unknown;
    proto.run = function (this: unknown, ...args: unknown[]) {
      if (current) chargeCost(1);
      return run.apply(this, args);
    };
    proto[METERED] = true;
  }
  return env;
}
