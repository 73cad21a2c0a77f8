import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import type { FlowEdge } from '../graph/flow';

/** An arrow; switch outputs say success or fail, multi arrows their instance count. */
export const WorkflowEdge = memo(function WorkflowEdge(props: EdgeProps<FlowEdge>) {
  const { t } = useTranslation('workflows');
  const [path, labelX, labelY] = getBezierPath(props);
  const edge = props.data?.edge;
  const label =
    edge?.type === 'switchOutput'
      ? t(edge.switchCondition === 'fail' ? 'conditionFail' : 'conditionSuccess')
      : edge?.type === 'multi'
        ? `×${edge.instanceNumber ?? 1} · ${t(edge.instanceType === 'file' ? 'instanceFile' : 'instanceLine')}`
        : null;
  const style = props.selected ? { ...props.style, strokeWidth: 4 } : props.style;
  return (
    <>
      <BaseEdge id={props.id} path={path} markerEnd={props.markerEnd} style={style} interactionWidth={16} />
      {label && (
        <EdgeLabelRenderer>
          <div
            className="nodrag nopan"
            style={{
              position: 'absolute',
              transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`,
              fontSize: 11,
              padding: '1px 6px',
              borderRadius: 8,
              background: '#1e1e1e',
              color: String(props.style?.stroke ?? '#fff'),
              border: `1px solid ${String(props.style?.stroke ?? '#fff')}`,
              pointerEvents: 'none',
            }}
          >
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
});

export const edgeTypes = { workflow: WorkflowEdge };
