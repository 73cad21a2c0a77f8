// What the canvas's nodes and edges read besides their own data: the sandboxes they run and
// whether an arrow is being drawn. A context, so a change here does not rebuild every node.
import { createContext, useContext } from 'react';

export interface SandboxInfo {
  name: string;
  author: string;
  avatar: string;
  /** The operator's phase: Ready, Pending or Error. */
  phase: string;
}

export interface EditorContextValue {
  /** By sandbox uuid; a node whose sandbox is missing here cannot run for the caller. */
  sandboxes: ReadonlyMap<string, SandboxInfo>;
  /** True while the palette is loading: 'missing' is not yet known. */
  sandboxesLoading: boolean;
  arrowActive: boolean;
}

export const EditorContext = createContext<EditorContextValue>({
  sandboxes: new Map(),
  sandboxesLoading: false,
  arrowActive: false,
});

export const useEditorContext = () => useContext(EditorContext);
