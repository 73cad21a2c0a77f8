import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import SaveIcon from '@mui/icons-material/Save';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Paper,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { FileUpload } from './FileUpload';

/**
 * Spec 1 §2.8's terminal panel: the UID (used at execution), the terminal, the entrypoint,
 * uploads, show/hide settings, Save and, once a terminal exists, Create New Workflow.
 */
export function TerminalPanel({
  uid,
  terminal,
  container,
  starting,
  failure,
  onRetry,
  entrypoint,
  readOnly,
  settingsShown,
  saving,
  onEntrypoint,
  onToggleSettings,
  onSave,
}: {
  uid: number;
  terminal: ReactNode;
  container: string | null;
  starting: boolean;
  /** Why the container could not be started ('' when the server did not say), or null. */
  failure: string | null;
  onRetry: () => void;
  entrypoint: string;
  readOnly: boolean;
  settingsShown: boolean;
  saving: boolean;
  onEntrypoint: (entrypoint: string) => void;
  onToggleSettings: () => void;
  onSave: () => void;
}) {
  const { t } = useTranslation('sandboxes');
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label={t('terminalPanel')}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {t('terminalPanel')}
        </Typography>
        <Tooltip title={t('uidTooltip')}>
          <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }} tabIndex={0} data-testid="uid">
            <Typography variant="body2">{t('uid', { uid })}</Typography>
            <InfoOutlinedIcon fontSize="small" color="action" />
          </Stack>
        </Tooltip>
      </Stack>
      {failure !== null && !starting && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={onRetry}>
              {t('retry')}
            </Button>
          }
        >
          {t('terminalFailed')} {failure}
        </Alert>
      )}
      {terminal ??
        (starting && (
          <Box
            sx={{ display: 'flex', alignItems: 'center', gap: 1, py: 4, justifyContent: 'center' }}
            role="status"
          >
            <CircularProgress size={20} />
            <Typography>{t('terminalStarting')}</Typography>
          </Box>
        ))}
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{
          mt: 2,
          alignItems: { sm: 'center' },
          flexWrap: 'wrap',
          '& .MuiButton-root': { whiteSpace: 'nowrap' },
        }}
        useFlexGap
      >
        <TextField
          size="small"
          label={t('entrypoint')}
          placeholder="/entrypoint.sh"
          value={entrypoint}
          disabled={readOnly}
          onChange={(e) => onEntrypoint(e.target.value)}
          sx={{ flex: 1, minWidth: 200 }}
        />
        {container && !readOnly && <FileUpload container={container} />}
        <Button onClick={onToggleSettings}>{t(settingsShown ? 'hideSettings' : 'showSettings')}</Button>
        {!readOnly && (
          <Button
            variant="contained"
            startIcon={saving ? <CircularProgress size={16} color="inherit" /> : <SaveIcon />}
            onClick={onSave}
            disabled={saving}
          >
            {t('save')}
          </Button>
        )}
        {container && (
          <Button variant="outlined" component={RouterLink} to="/workflow/create">
            {t('createWorkflow')}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
