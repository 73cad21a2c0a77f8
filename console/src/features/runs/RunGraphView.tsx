import { ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import TerminalIcon from '@mui/icons-material/Terminal';
import FolderIcon from '@mui/icons-material/Folder';
import { Background, Controls, ReactFlow, ReactFlowProvider, type NodeMouseHandler } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { edgeTypes } from '../workflows/edges/WorkflowEdge';
import { START_ID } from '../workflows/graph/model';
import { StartNode } from '../workflows/nodes/StartNode';
import { SwitchNode } from '../workflows/nodes/SwitchNode';
import type { Run } from '../sessions/types';
import { runFlow, type RunFlowNode } from './graph';
import { RunNode } from './RunNode';

const nodeTypes = { start: StartNode, switch: SwitchNode, runSandbox: RunNode };
/** Beyond this many nodes only what is on screen is rendered (the 5,000-node benchmark). */
const VISIBLE_ONLY_FROM = 300;

export type NodeCommand = 'restart' | 'logs' | 'files';

/** The run's graph (read-only), statuses coloured; a click selects, a right-click offers commands. */
export function RunGraphView({
  run,
  selected,
  onSelect,
  onCommand,
  canRestart,
}: {
  run: Run;
  selected: string | null;
  onSelect: (nodeId: string) => void;
  onCommand: (command: NodeCommand, nodeId: string) => void;
  canRestart: boolean;
}) {
  const { t } = useTranslation('runs');
  const flow = useMemo(() => runFlow(run), [run]);
  const nodes = useMemo(
    () => flow.nodes.map((n) => (n.id === selected ? { ...n, selected: true } : n)),
    [flow.nodes, selected],
  );
  const big = nodes.length > VISIBLE_ONLY_FROM;
  const start = flow.nodes.find((n) => n.id === START_ID)?.position ?? { x: 0, y: 0 };
  const openingViewport = { x: 60 - start.x, y: 240 - start.y, zoom: 1 };
  const [menu, setMenu] = useState<{ x: number; y: number; id: string } | null>(null);
  const onContext: NodeMouseHandler<RunFlowNode> = (event, node) => {
    if (node.type !== 'runSandbox') return;
    event.preventDefault();
    onSelect(node.id);
    setMenu({ x: event.clientX, y: event.clientY, id: node.id });
  };
  const command = (c: NodeCommand) => {
    if (menu) onCommand(c, menu.id);
    setMenu(null);
  };
  return (
    <ReactFlowProvider>
      <ReactFlow<RunFlowNode>
        nodes={nodes}
        edges={flow.edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        onlyRenderVisibleElements={big}
        onNodeClick={(_e, node) => node.type === 'runSandbox' && onSelect(node.id)}
        onNodeContextMenu={onContext}
        // A big run opens at its start, at full size, so only what is on screen is drawn; a
        // small one is fitted whole.
        fitView={!big}
        fitViewOptions={{ maxZoom: 1 }}
        defaultViewport={big ? openingViewport : undefined}
        minZoom={0.05}
        colorMode="dark"
        proOptions={{ hideAttribution: true }}
        aria-label={t('graph')}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
      <Menu
        open={menu !== null}
        onClose={() => setMenu(null)}
        anchorReference="anchorPosition"
        anchorPosition={menu ? { top: menu.y, left: menu.x } : undefined}
      >
        <MenuItem onClick={() => command('restart')} disabled={!canRestart}>
          <ListItemIcon>
            <RestartAltIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('menu.restart')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => command('logs')}>
          <ListItemIcon>
            <TerminalIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('menu.logs')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => command('files')}>
          <ListItemIcon>
            <FolderIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('menu.files')}</ListItemText>
        </MenuItem>
      </Menu>
    </ReactFlowProvider>
  );
}
