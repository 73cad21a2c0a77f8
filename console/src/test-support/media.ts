import { vi } from 'vitest';

const matching = (query: string, width: number) => {
  const max = /max-width:\s*([\d.]+)px/.exec(query);
  const min = /min-width:\s*([\d.]+)px/.exec(query);
  return (!max || width <= Number(max[1])) && (!min || width >= Number(min[1]));
};

/**
 * window.matchMedia for a window `width` px wide (jsdom has no media queries of its own).
 * The answer's `resize` changes the width and tells the lists whose answer changed, as a
 * browser does when the window crosses a breakpoint.
 */
export function stubWindowWidth(width: number) {
  let current = width;
  const lists: { query: string; matches: boolean; listeners: Set<() => void> }[] = [];
  vi.stubGlobal('matchMedia', (query: string) => {
    const list = { query, matches: matching(query, current), listeners: new Set<() => void>() };
    lists.push(list);
    return {
      get matches() {
        return matching(query, current);
      },
      media: query,
      onchange: null,
      addEventListener: (_type: string, listener: () => void) => list.listeners.add(listener),
      removeEventListener: (_type: string, listener: () => void) => list.listeners.delete(listener),
      addListener: (listener: () => void) => list.listeners.add(listener),
      removeListener: (listener: () => void) => list.listeners.delete(listener),
      dispatchEvent: () => false,
    };
  });
  return {
    resize(next: number) {
      current = next;
      for (const list of lists) {
        const matches = matching(list.query, current);
        if (matches === list.matches) continue;
        list.matches = matches;
        for (const listener of list.listeners) listener();
      }
    },
  };
}
