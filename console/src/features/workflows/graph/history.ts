// Undo/redo over snapshots of the graph (spec 2 §4: at most about 90).
import { HISTORY_LIMIT, type Graph } from './model';

export interface History {
  past: Graph[];
  present: Graph;
  future: Graph[];
}

export const startHistory = (present: Graph): History => ({ past: [], present, future: [] });

/** A change: the present goes to the past (oldest dropped beyond the limit), redo is lost. */
export function record(history: History, next: Graph, limit = HISTORY_LIMIT): History {
  if (next === history.present) return history;
  const past = [...history.past, history.present];
  return { past: past.length > limit ? past.slice(past.length - limit) : past, present: next, future: [] };
}

export function undo(history: History): History {
  const previous = history.past.at(-1);
  if (!previous) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

export function redo(history: History): History {
  const [next, ...future] = history.future;
  if (!next) return history;
  return { past: [...history.past, history.present], present: next, future };
}
