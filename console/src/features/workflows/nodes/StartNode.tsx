import { Box, Typography } from '@mui/material';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import type { StartFlowNode } from '../graph/flow';
import { SWITCH_SIZE } from '../graph/model';

/** The starting point, left of everything: its arrows point at the sandboxes that run first. */
export const StartNode = memo(function StartNode({ selected }: NodeProps<StartFlowNode>) {
  const { t } = useTranslation('workflows');
  return (
    <Box
      data-testid="start-node"
      sx={{
        width: SWITCH_SIZE,
        height: SWITCH_SIZE,
        borderRadius: '50%',
        border: 2,
        borderColor: selected ? 'primary.main' : 'text.secondary',
        display: 'grid',
        placeItems: 'center',
        bgcolor: 'background.paper',
      }}
    >
      <Typography variant="caption" sx={{ fontSize: 10 }}>
        {t('start')}
      </Typography>
      <Handle type="source" position={Position.Right} />
    </Box>
  );
});
