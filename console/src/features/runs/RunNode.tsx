import { Avatar, Box, Tooltip, Typography } from '@mui/material';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { NODE_SIZE } from '../workflows/graph/model';
import type { RunSandboxNode } from './graph';
import { colourOf, legendOf } from './status';

/** How many instances the bar draws one by one; beyond, it shows their shares. */
const SEGMENTS_MAX = 24;

/** The status bar under a node: its own status, or its dynamic instances' statuses side by side. */
function StatusBar({ status, subs }: RunSandboxNode['data']) {
  const { t } = useTranslation('runs');
  if (subs.length === 0)
    return (
      <Box
        data-testid="status-bar"
        sx={{ height: 6, borderRadius: 3, bgcolor: colourOf(status), width: '100%' }}
      />
    );
  const shown =
    subs.length <= SEGMENTS_MAX
      ? subs.map((s) => ({ key: s.name, colour: colourOf(s.status), share: 1 }))
      : Object.entries(
          subs.reduce<Record<string, number>>(
            (all, s) => ({ ...all, [s.status]: (all[s.status] ?? 0) + 1 }),
            {},
          ),
        ).map(([s, n]) => ({ key: s, colour: colourOf(s), share: n }));
  return (
    <Tooltip title={t('instances', { count: subs.length })}>
      <Box data-testid="status-bar" sx={{ display: 'flex', gap: '1px', height: 6, width: '100%' }}>
        {shown.map((s) => (
          <Box key={s.key} sx={{ flex: s.share, bgcolor: s.colour, borderRadius: 1 }} />
        ))}
      </Box>
    </Tooltip>
  );
}

/** A sandbox of the run: its name, status colour (legend of spec 2 §2) and status bar. */
export const RunNode = memo(function RunNode({ data, selected }: NodeProps<RunSandboxNode>) {
  const { t } = useTranslation('runs');
  const colour = colourOf(data.status);
  return (
    <Box
      data-testid="run-node"
      data-status={legendOf(data.status)}
      aria-label={`${data.node.name}: ${t(`legend.${legendOf(data.status)}`)}`}
      sx={{
        width: NODE_SIZE,
        height: NODE_SIZE,
        borderRadius: 2,
        border: 2,
        borderColor: selected ? 'common.white' : colour,
        boxShadow: selected ? `0 0 0 3px ${colour}` : undefined,
        bgcolor: 'background.paper',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 0.25,
        px: 0.5,
        pb: 0.5,
      }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <Avatar sx={{ width: 26, height: 26, fontSize: 13, bgcolor: colour, color: '#111' }}>
        {data.node.name.slice(0, 1).toUpperCase()}
      </Avatar>
      <Typography
        variant="caption"
        noWrap
        title={data.node.name}
        sx={{ maxWidth: '100%', fontWeight: 600, lineHeight: 1.2 }}
      >
        {data.node.name}
      </Typography>
      <Typography variant="caption" noWrap sx={{ fontSize: 9, lineHeight: 1.1, color: colour }}>
        {t(`legend.${legendOf(data.status)}`)}
      </Typography>
      <StatusBar {...data} />
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </Box>
  );
});
