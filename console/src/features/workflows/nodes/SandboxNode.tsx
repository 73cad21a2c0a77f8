import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { useEditorContext } from '../EditorContext';
import type { SandboxFlowNode } from '../graph/flow';
import { NODE_SIZE } from '../graph/model';

const STATE_COLOUR: Record<string, string> = {
  Ready: '#4caf50',
  Pending: '#ffa726',
  Error: '#f44336',
  missing: '#9e9e9e',
};

// Plain elements with constant styles, not MUI components: a workflow of thousands of nodes draws
// each of them, and emotion's per-component work dominated the first render (bench/editor).
const box: CSSProperties = {
  width: NODE_SIZE,
  height: NODE_SIZE,
  boxSizing: 'border-box',
  borderRadius: 8,
  // Longhands, not the `border` shorthand: the selected box changes only the colour, and React
  // warns (and may drop the colour) when a rerender removes `borderColor` beside `border`.
  borderWidth: 2,
  borderStyle: 'solid',
  borderColor: 'rgba(255,255,255,0.12)',
  background: '#1e1e1e',
  color: '#fff',
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  justifyContent: 'center',
  gap: 2,
  padding: '0 4px',
  position: 'relative',
  font: '12px/1.2 Roboto, Helvetica, Arial, sans-serif',
};
const selectedBox: CSSProperties = { ...box, borderColor: '#f5b656' };
const avatar: CSSProperties = {
  width: 28,
  height: 28,
  borderRadius: '50%',
  background: '#757575',
  display: 'grid',
  placeItems: 'center',
  fontSize: 14,
  overflow: 'hidden',
  flexShrink: 0,
};
const line: CSSProperties = {
  maxWidth: '100%',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
};
const name: CSSProperties = { ...line, fontWeight: 600 };
const owner: CSSProperties = { ...line, fontSize: 10, color: 'rgba(255,255,255,0.7)' };
const dot: CSSProperties = {
  position: 'absolute',
  top: 5,
  right: 5,
  width: 9,
  height: 9,
  borderRadius: '50%',
};

/** A sandbox on the canvas: avatar, name, owner and whether its sandbox can run (spec 2 §2). */
export const SandboxNode = memo(function SandboxNode({ data, selected }: NodeProps<SandboxFlowNode>) {
  const { t } = useTranslation('workflows');
  const { sandboxes, sandboxesLoading, arrowActive } = useEditorContext();
  const info = sandboxes.get(data.node.src_id);
  const state = info
    ? STATE_COLOUR[info.phase]
      ? info.phase
      : 'Pending'
    : sandboxesLoading
      ? 'Pending'
      : 'missing';
  const label = t(`sandboxState.${state}`);
  return (
    <div
      data-testid="sandbox-node"
      aria-label={data.node.name}
      style={
        arrowActive
          ? { ...(selected ? selectedBox : box), cursor: 'crosshair' }
          : selected
            ? selectedBox
            : box
      }
    >
      <Handle type="target" position={Position.Left} />
      <div style={avatar}>
        {info?.avatar ? (
          <img src={info.avatar} alt="" width={28} height={28} />
        ) : (
          data.node.name.slice(0, 1).toUpperCase()
        )}
      </div>
      <div style={name} title={data.node.name}>
        {data.node.name}
      </div>
      <div style={owner}>{info?.author ?? ''}</div>
      <div role="img" title={label} aria-label={label} style={{ ...dot, background: STATE_COLOUR[state] }} />
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
