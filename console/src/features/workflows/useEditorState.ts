// The editor's drawing: the graph with its undo history, the arrow being drawn and what is selected.
import { useCallback, useMemo, useReducer } from 'react';
import { record, redo, startHistory, undo, type History } from './graph/history';
import type { Graph } from './graph/model';

export type Selection = { kind: 'node' | 'switch' | 'edge' | 'start'; id: string } | null;
export interface ArrowMode {
  from: string;
  multi: boolean;
}

interface State {
  history: History;
  /** The graph as last saved (or loaded): a different present is an unsaved change. */
  saved: Graph;
  arrow: ArrowMode | null;
  selection: Selection;
}

type Action =
  | { type: 'change'; change: (graph: Graph) => Graph }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'load'; graph: Graph }
  | { type: 'saved'; graph: Graph }
  | { type: 'arrow'; arrow: ArrowMode | null }
  | { type: 'select'; selection: Selection };

function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'change': {
      const history = record(state.history, action.change(state.history.present));
      return history === state.history ? state : { ...state, history };
    }
    case 'undo':
      return { ...state, history: undo(state.history), arrow: null };
    case 'redo':
      return { ...state, history: redo(state.history), arrow: null };
    case 'load':
      return { history: startHistory(action.graph), saved: action.graph, arrow: null, selection: null };
    case 'saved':
      return { ...state, saved: action.graph };
    case 'arrow':
      return { ...state, arrow: action.arrow };
    case 'select':
      return { ...state, selection: action.selection };
  }
}

export function useEditorState(initial: Graph) {
  const [state, dispatch] = useReducer(reducer, initial, (graph) => ({
    history: startHistory(graph),
    saved: graph,
    arrow: null,
    selection: null,
  }));
  const change = useCallback((fn: (graph: Graph) => Graph) => dispatch({ type: 'change', change: fn }), []);
  const actions = useMemo(
    () => ({
      change,
      undo: () => dispatch({ type: 'undo' }),
      redo: () => dispatch({ type: 'redo' }),
      load: (graph: Graph) => dispatch({ type: 'load', graph }),
      /** What was sent is saved; drawing done while the call was out stays unsaved. */
      markSaved: (graph: Graph) => dispatch({ type: 'saved', graph }),
      setArrow: (arrow: ArrowMode | null) => dispatch({ type: 'arrow', arrow }),
      select: (selection: Selection) => dispatch({ type: 'select', selection }),
    }),
    [change],
  );
  return {
    graph: state.history.present,
    canUndo: state.history.past.length > 0,
    canRedo: state.history.future.length > 0,
    graphChanged: state.history.present !== state.saved,
    arrow: state.arrow,
    selection: state.selection,
    ...actions,
  };
}
