import { describe, expect, it } from 'vitest';
import { record, redo, startHistory, undo } from './history';
import { HISTORY_LIMIT } from './model';
import { aGraph } from './testing';

const g = (n: number) => aGraph(Array.from({ length: n }, (_v, i) => `n${i}`));
const size = (h: { present: { nodes: unknown[] } }) => h.present.nodes.length;

describe('history', () => {
  it.each([
    ['undo goes back one change', (h: ReturnType<typeof startHistory>) => undo(h), 1],
    ['undo twice goes to the start', (h: ReturnType<typeof startHistory>) => undo(undo(h)), 0],
    ['undo past the start stays there', (h: ReturnType<typeof startHistory>) => undo(undo(undo(h))), 0],
    ['redo after undo comes back', (h: ReturnType<typeof startHistory>) => redo(undo(h)), 2],
    ['redo with nothing undone stays', (h: ReturnType<typeof startHistory>) => redo(h), 2],
    [
      'a change after undo drops redo',
      (h: ReturnType<typeof startHistory>) => redo(record(undo(h), g(5))),
      5,
    ],
  ])('%s', (_what, step, nodes) => {
    const history = record(record(startHistory(g(0)), g(1)), g(2));
    expect(size(step(history))).toBe(nodes);
  });

  it('keeps at most the limit of snapshots, dropping the oldest', () => {
    let history = startHistory(g(0));
    for (let i = 1; i <= HISTORY_LIMIT + 10; i++) history = record(history, g(i));
    expect(history.past).toHaveLength(HISTORY_LIMIT);
    while (history.past.length > 0) history = undo(history);
    expect(size(history)).toBe(10);
  });

  it('ignores a change that changed nothing', () => {
    const history = startHistory(g(1));
    expect(record(history, history.present)).toBe(history);
  });
});
