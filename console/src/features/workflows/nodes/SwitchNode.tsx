import { Box } from '@mui/material';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import type { SwitchFlowNode } from '../graph/flow';
import { SWITCH_SIZE } from '../graph/model';

/** A switch: one input from a sandbox, outputs on success and on fail. */
export const SwitchNode = memo(function SwitchNode({ selected }: NodeProps<SwitchFlowNode>) {
  const { t } = useTranslation('workflows');
  return (
    <Box
      data-testid="switch-node"
      aria-label={t('switch')}
      sx={{ width: SWITCH_SIZE, height: SWITCH_SIZE, display: 'grid', placeItems: 'center' }}
    >
      <Handle type="target" position={Position.Left} />
      <Box
        sx={{
          width: SWITCH_SIZE * 0.7,
          height: SWITCH_SIZE * 0.7,
          transform: 'rotate(45deg)',
          border: 2,
          borderColor: selected ? 'primary.main' : 'warning.main',
          bgcolor: 'background.paper',
        }}
      />
      <Handle type="source" position={Position.Right} />
    </Box>
  );
});
