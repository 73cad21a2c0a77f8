import { Box, Typography, useMediaQuery } from '@mui/material';
import {
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MOBILE_QUERY } from '../../app/theme';
import { arrow, merge, newId, refuseArrow, remove, split, switchAfter } from './canvasActions';
import { CanvasMenu, type MenuEntry } from './CanvasMenu';
import { SANDBOX_MIME } from './dnd';
import { EditorContext, type EditorContextValue } from './EditorContext';
import { edgeTypes } from './edges/WorkflowEdge';
import { positionsOf, toFlowEdges, toFlowNodes, type FlowEdge, type FlowNode } from './graph/flow';
import { addNode, addSwitch, moveItems, type SandboxRef } from './graph/items';
import { layeredPositions, startPosition } from './graph/layout';
import { EMPTY_GRAPH, START_ID } from './graph/model';
import { nodeTypes } from './nodes';
import type { Selection, useEditorState } from './useEditorState';

/** Beyond this, only what is on screen is rendered (the 1,000/5,000-node benchmark). */
const VISIBLE_ONLY_FROM = 300;
/** Fitting never zooms in past 1: a lone starting point stays its own size. */
const FIT = { padding: 0.2, maxZoom: 1 };

type Editor = ReturnType<typeof useEditorState>;
type MenuTarget = { kind: 'pane'; x: number; y: number } | Exclude<Selection, null>;

const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/** The diagram (spec 2 §2 'Diagram canvas', §4 'Canvas interactions'). */
export function Canvas({
  editor,
  readOnly,
  meId,
  context,
  onSettings,
}: {
  editor: Editor;
  readOnly: boolean;
  meId: string;
  context: Omit<EditorContextValue, 'arrowActive'>;
  onSettings: (selection: Exclude<Selection, null>) => void;
}) {
  const { t } = useTranslation('workflows');
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const phone = useMediaQuery(MOBILE_QUERY);
  const { graph, change, arrow: arrowMode, setArrow, selection, select } = editor;
  const [nodes, setNodes] = useState<FlowNode[]>(() => toFlowNodes(graph, readOnly));
  const [edges, setEdges] = useState<FlowEdge[]>(() => toFlowEdges(graph));
  // A large workflow opens on its starting point at a readable zoom instead of fitted whole: with
  // only visible elements rendered, that draws dozens of nodes rather than thousands.
  const [largeStart] = useState(() => {
    if (graph.nodes.length <= VISIBLE_ONLY_FROM) return undefined;
    const at = startPosition(graph);
    return { x: 80 - at.x * 0.8, y: 300 - at.y * 0.8, zoom: 0.8 };
  });
  const [menu, setMenu] = useState<{ at: { x: number; y: number }; target: MenuTarget } | null>(null);

  // The graph is the truth; React Flow's copies follow it, keeping what React Flow measured and
  // selected, so an edit does not make it measure a thousand nodes again.
  useEffect(() => {
    setNodes((current) => {
      const before = new Map(current.map((n) => [n.id, n]));
      return toFlowNodes(graph, readOnly).map((n) => {
        const old = before.get(n.id);
        return old ? ({ ...n, measured: old.measured, selected: old.selected } as FlowNode) : n;
      });
    });
    setEdges((current) => {
      const selected = new Set(current.filter((e) => e.selected).map((e) => e.id));
      return toFlowEdges(graph).map((e) => (selected.has(e.id) ? { ...e, selected: true } : e));
    });
  }, [graph, readOnly]);

  const kindOf = useCallback(
    (id: string): Exclude<Selection, null>['kind'] =>
      id === START_ID ? 'start' : graph.switches.some((s) => s.id === id) ? 'switch' : 'node',
    [graph],
  );

  const startArrow = useCallback(
    (from: string, multi: boolean) => {
      if (!readOnly) setArrow({ from, multi });
    },
    [readOnly, setArrow],
  );

  const removeSelected = useCallback(() => {
    if (readOnly || !selection || selection.kind === 'start') return;
    const edge = graph.edges.find((e) => e.id === selection.id);
    if (edge?.type === 'start') return;
    change((g) => remove(g, [selection.id]));
    select(null);
  }, [readOnly, selection, graph, change, select]);

  const order = useCallback(() => {
    change((g) => moveItems(g, layeredPositions(g)));
    requestAnimationFrame(() => void flow.fitView(FIT));
  }, [change, flow]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.defaultPrevented) return;
      const key = event.key.toLowerCase();
      const ctrl = event.ctrlKey || event.metaKey;
      if (key === 'escape' && arrowMode) setArrow(null);
      else if (ctrl && key === 'z' && !event.shiftKey) editor.undo();
      else if (ctrl && (key === 'y' || (key === 'z' && event.shiftKey))) editor.redo();
      else if (!ctrl && key === 'a' && selection && selection.kind !== 'edge')
        startArrow(selection.id, false);
      else if (key === 'delete') removeSelected();
      else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [arrowMode, setArrow, editor, selection, startArrow, removeSelected]);

  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) =>
      setNodes((current) =>
        applyNodeChanges(
          changes.filter((c) => c.type !== 'remove'),
          current,
        ),
      ),
    [],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) =>
      setEdges((current) =>
        applyEdgeChanges(
          changes.filter((c) => c.type !== 'remove'),
          current,
        ),
      ),
    [],
  );

  const clickItem = (id: string) => {
    setMenu(null);
    if (arrowMode) {
      if (!readOnly && !refuseArrow(graph, arrowMode.from, id, arrowMode.multi))
        change((g) => arrow(g, arrowMode.from, id, arrowMode.multi));
      setArrow(null);
      return;
    }
    select({ kind: kindOf(id), id });
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    const payload = event.dataTransfer.getData(SANDBOX_MIME);
    if (readOnly || !payload) return;
    const sandbox = JSON.parse(payload) as SandboxRef;
    const at = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
    change((g) => addNode(g, sandbox, at, newId()));
  };

  const entries = useMemo((): MenuEntry[] => {
    if (!menu) return [];
    const target = menu.target;
    const settings = (s: Exclude<Selection, null>): MenuEntry => ({
      key: 'settings',
      label: t('actions.settings'),
      onClick: () => {
        select(s);
        onSettings(s);
      },
    });
    const del = (id: string): MenuEntry => ({
      key: 'delete',
      label: t('actions.delete'),
      onClick: () => change((g) => remove(g, [id])),
      disabled: readOnly,
      divider: true,
    });
    if (target.kind === 'pane') {
      const at = flow.screenToFlowPosition({ x: target.x, y: target.y });
      return [
        {
          key: 'addSwitch',
          label: t('actions.addSwitch'),
          onClick: () => change((g) => addSwitch(g, at, newId())),
          disabled: readOnly,
        },
        { key: 'order', label: t('actions.order'), onClick: order, disabled: readOnly },
        {
          key: 'clear',
          label: t('actions.clear'),
          onClick: () => change(() => EMPTY_GRAPH),
          disabled: readOnly,
        },
        {
          key: 'reset',
          label: t('actions.reset'),
          onClick: () => void flow.fitView(FIT),
          divider: true,
        },
      ];
    }
    if (target.kind === 'start')
      return [
        {
          key: 'arrow',
          label: t('actions.addArrow'),
          onClick: () => startArrow(START_ID, false),
          disabled: readOnly,
        },
      ];
    if (target.kind === 'switch')
      return [
        {
          key: 'arrow',
          label: t('actions.addArrow'),
          onClick: () => startArrow(target.id, false),
          disabled: readOnly,
        },
        del(target.id),
      ];
    if (target.kind === 'node') {
      const node = graph.nodes.find((n) => n.id === target.id);
      return [
        {
          key: 'arrow',
          label: t('actions.addArrow'),
          onClick: () => startArrow(target.id, false),
          disabled: readOnly,
        },
        {
          key: 'multi',
          label: t('actions.addMultiArrow'),
          onClick: () => startArrow(target.id, true),
          disabled: readOnly,
        },
        {
          key: 'switch',
          label: t('actions.switch'),
          onClick: () => change((g) => switchAfter(g, target.id)),
          disabled: readOnly,
        },
        settings(target),
        {
          key: 'open',
          label: t('actions.openSandbox'),
          // Spec 2 §2: the shortcut is disabled when the node's owner is the current user (as built).
          disabled: !node || node.owner === meId,
          onClick: () => window.open(`/sandbox/edit/${node!.src_id}`, '_blank', 'noopener'),
        },
        del(target.id),
      ];
    }
    const edge = graph.edges.find((e) => e.id === target.id);
    if (!edge) return [];
    return [
      {
        key: 'dynamic',
        label: t('actions.dynamicInstance'),
        disabled: readOnly || (edge.type !== 'single' && edge.type !== 'multi'),
        onClick: () => {
          change((g) => split(g, edge.id));
          select(target);
          onSettings(target);
        },
      },
      {
        key: 'split',
        label: t('actions.split'),
        onClick: () => change((g) => split(g, edge.id)),
        disabled: readOnly || edge.type !== 'single',
      },
      {
        key: 'merge',
        label: t('actions.merge'),
        onClick: () => change((g) => merge(g, edge.id)),
        disabled: readOnly || edge.type !== 'multi',
      },
      settings(target),
      ...(edge.type === 'start' ? [] : [del(edge.id)]),
    ];
  }, [menu, t, graph, readOnly, change, select, onSettings, order, startArrow, meId, flow]);

  const contextValue = useMemo(() => ({ ...context, arrowActive: arrowMode !== null }), [context, arrowMode]);
  const openMenu = (
    event: { preventDefault: () => void; clientX: number; clientY: number },
    target: MenuTarget,
  ) => {
    event.preventDefault();
    setMenu({ at: { x: event.clientX, y: event.clientY }, target });
  };

  return (
    <EditorContext.Provider value={contextValue}>
      <Box
        sx={{ position: 'relative', width: '100%', height: '100%' }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDrop={drop}
      >
        {arrowMode && (
          <Typography
            role="status"
            sx={{
              position: 'absolute',
              zIndex: 5,
              top: 8,
              left: '50%',
              transform: 'translateX(-50%)',
              px: 1.5,
              py: 0.5,
              borderRadius: 1,
              bgcolor: 'primary.dark',
              color: 'primary.contrastText',
            }}
          >
            {t(arrowMode.multi ? 'arrowModeMulti' : 'arrowMode')}
          </Typography>
        )}
        <ReactFlow<FlowNode, FlowEdge>
          aria-label={t('canvasLabel')}
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onNodeClick={(_e, node) => clickItem(node.id)}
          onEdgeClick={(_e, edge) => {
            setMenu(null);
            if (arrowMode) setArrow(null);
            else select({ kind: 'edge', id: edge.id });
          }}
          onNodeDoubleClick={(_e, node) =>
            node.id !== START_ID && onSettings({ kind: kindOf(node.id), id: node.id })
          }
          onEdgeDoubleClick={(_e, edge) => onSettings({ kind: 'edge', id: edge.id })}
          onPaneClick={() => {
            setMenu(null);
            setArrow(null);
            select(null);
          }}
          onNodeContextMenu={(event, node) => openMenu(event, { kind: kindOf(node.id), id: node.id })}
          onEdgeContextMenu={(event, edge) => openMenu(event, { kind: 'edge', id: edge.id })}
          onPaneContextMenu={(event) => openMenu(event, { kind: 'pane', x: event.clientX, y: event.clientY })}
          onConnect={(c) => !readOnly && change((g) => arrow(g, c.source, c.target, false))}
          onNodeDragStop={(_e, _node, dragged) => change((g) => moveItems(g, positionsOf(dragged)))}
          nodesConnectable={!readOnly}
          nodesDraggable={!readOnly}
          deleteKeyCode={null}
          selectionKeyCode={null}
          multiSelectionKeyCode={null}
          onlyRenderVisibleElements={graph.nodes.length > VISIBLE_ONLY_FROM}
          colorMode="dark"
          minZoom={0.05}
          fitView={!largeStart}
          fitViewOptions={FIT}
          defaultViewport={largeStart}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
          {!phone && graph.nodes.length <= VISIBLE_ONLY_FROM && <MiniMap pannable zoomable />}
        </ReactFlow>
        <CanvasMenu at={menu?.at ?? null} entries={entries} onClose={() => setMenu(null)} />
      </Box>
    </EditorContext.Provider>
  );
}
