import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Tooltip,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Result } from '../../api/answers';

/** GET /run/{uuid}/variables: what each sandbox of the run ran with. */
export type RunVariables = Result<'getRunUuidVariables'>;
export type SandboxVariables = RunVariables['sandboxes'][number];
export type VariableSource = SandboxVariables['variables'][number]['source'];

const SOURCE_COLOR: Record<VariableSource, 'primary' | 'secondary' | 'default'> = {
  session: 'primary',
  workflow: 'secondary',
  sandbox: 'default',
  unknown: 'default',
};

/** Where a value came from; one no layer holds any more is dashed and greyed. */
function SourceChip({ source }: { source: VariableSource }) {
  const { t } = useTranslation('runs');
  return (
    <Chip
      size="small"
      variant="outlined"
      color={SOURCE_COLOR[source]}
      label={t(`vars.source.${source}`)}
      sx={{
        maxWidth: '100%',
        height: 'auto',
        '& .MuiChip-label': { whiteSpace: 'normal', py: 0.25 },
        ...(source === 'unknown' ? { borderStyle: 'dashed', color: 'text.secondary' } : {}),
      }}
    />
  );
}

function SandboxTable({ sandbox, compact }: { sandbox: SandboxVariables; compact: boolean }) {
  const { t } = useTranslation('runs');
  if (sandbox.variables.length === 0)
    return (
      <Typography variant="body2" color="text.secondary" sx={{ px: 1, pb: 1 }}>
        {t('vars.empty')}
      </Typography>
    );
  return (
    <Table size="small" aria-label={t('vars.of', { sandbox: sandbox.name })} sx={{ tableLayout: 'fixed' }}>
      <TableHead>
        <TableRow>
          <TableCell sx={{ width: compact ? '32%' : '25%' }}>{t('vars.columns.name')}</TableCell>
          <TableCell>{t('vars.columns.value')}</TableCell>
          {!compact && <TableCell sx={{ width: 220 }}>{t('vars.columns.source')}</TableCell>}
        </TableRow>
      </TableHead>
      <TableBody>
        {sandbox.variables.map((v) => (
          <TableRow key={v.name} data-testid="variable-row">
            <TableCell sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere', verticalAlign: 'top' }}>
              {v.name}
            </TableCell>
            <TableCell sx={{ verticalAlign: 'top' }}>
              <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 0.5 }}>
                <Box
                  component="code"
                  sx={{
                    flex: 1,
                    minWidth: 0,
                    fontFamily: 'monospace',
                    whiteSpace: 'pre-wrap',
                    overflowWrap: 'anywhere',
                  }}
                >
                  {v.value}
                </Box>
                <Tooltip title={t('vars.copy', { name: v.name })}>
                  <IconButton
                    size="small"
                    sx={{ mt: -0.5 }}
                    aria-label={t('vars.copy', { name: v.name })}
                    onClick={() => void navigator.clipboard?.writeText(v.value)}
                  >
                    <ContentCopyIcon sx={{ fontSize: 16 }} />
                  </IconButton>
                </Tooltip>
              </Box>
              {/* Narrow screens: the origin under the value rather than in a column of its own. */}
              {compact && (
                <Box sx={{ mt: 0.5 }}>
                  <SourceChip source={v.source} />
                </Box>
              )}
            </TableCell>
            {!compact && (
              <TableCell sx={{ verticalAlign: 'top' }}>
                <SourceChip source={v.source} />
              </TableCell>
            )}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * Variables tab of the run dashboard: per sandbox, the name, value and origin of each variable its
 * step ran with. A sandbox selected on the graph narrows the list to it.
 */
export function VariablesTab({
  variables,
  loading,
  error,
  onRetry,
  selected,
  onShowAll,
  compact,
}: {
  variables: RunVariables | undefined;
  loading: boolean;
  error?: string;
  onRetry: () => void;
  /** The graph's selected node id: only its sandbox is listed. */
  selected: string | null;
  onShowAll: () => void;
  compact: boolean;
}) {
  const { t } = useTranslation('runs');
  if (error && !variables)
    return (
      <Alert severity="error" action={<Button onClick={onRetry}>{t('retry')}</Button>}>
        {t('vars.failed')}: {error}
      </Alert>
    );
  if (!variables)
    return loading ? (
      <Box sx={{ display: 'grid', placeItems: 'center', p: 3 }}>
        <CircularProgress aria-label={t('loading')} />
      </Box>
    ) : null;
  if (!variables.compiled)
    return (
      <Typography color="text.secondary" sx={{ p: 2 }}>
        {t('vars.notCompiled')}
      </Typography>
    );
  const one = selected ? variables.sandboxes.find((s) => s.id === selected) : undefined;
  const shown = one ? [one] : variables.sandboxes;
  if (!one && shown.every((s) => s.variables.length === 0))
    return (
      <Typography color="text.secondary" sx={{ p: 2 }}>
        {t('vars.none')}
      </Typography>
    );
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
      {one && (
        <Box>
          <Button size="small" onClick={onShowAll}>
            {t('vars.showAll')}
          </Button>
        </Box>
      )}
      {shown.map((s) => (
        <Box component="section" key={s.id} aria-label={t('vars.of', { sandbox: s.name })}>
          <Typography variant="subtitle2" component="h3" sx={{ px: 1, mb: 0.5, wordBreak: 'break-word' }}>
            {s.name}
          </Typography>
          <SandboxTable sandbox={s} compact={compact} />
        </Box>
      ))}
    </Box>
  );
}
