import ContentCopy from '@mui/icons-material/ContentCopy';
import ExpandMore from '@mui/icons-material/ExpandMore';
import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  InputAdornment,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure } from '../../toasts/outcome';
import { useCreateCluster } from './queries';

/** The token modal is 662 px wide (spec 3 §2.6). */
export const TOKEN_DIALOG_WIDTH = 662;

function CopyField({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation('settings');
  const [copied, setCopied] = useState(false);
  return (
    <TextField
      label={label}
      value={value}
      fullWidth
      multiline
      slotProps={{
        htmlInput: { readOnly: true, 'aria-label': label, style: { fontFamily: 'monospace' } },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={copied ? t('clusters.token.copied') : t('clusters.token.copy')}>
                <IconButton
                  aria-label={t('clusters.token.copyNamed', { name: label })}
                  onClick={() =>
                    void navigator.clipboard?.writeText(value).then(
                      () => setCopied(true),
                      () => setCopied(false),
                    )
                  }
                >
                  <ContentCopy fontSize="small" />
                </IconButton>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/**
 * The token modal (spec 3 §2.6): 662 px, two collapsible sections. The first adds a cluster
 * manager and shows its agent token once, with a copy button (closing the modal forgets it);
 * the second (own resources) is inert and its Add new button is disabled. New cluster managers
 * are private to `organization` (the current one).
 */
export function TokenDialog({ organization, onClose }: { organization: string | null; onClose: () => void }) {
  const { t } = useTranslation('settings');
  const create = useCreateCluster();
  const [token, setToken] = useState<string | null>(null);
  const generate = () =>
    create.mutate(organization ? { organizations: [organization] } : {}, {
      onSuccess: (answer) => setToken(answer.token),
      onError: (e) => toastFailure(e),
    });
  const command = token ? `npx sandflow agent --api ${window.location.origin} --token ${token}` : '';
  return (
    <Dialog
      open
      onClose={onClose}
      aria-labelledby="token-dialog-title"
      slotProps={{ paper: { sx: { width: TOKEN_DIALOG_WIDTH, maxWidth: 'calc(100% - 32px)', m: 2 } } }}
    >
      <DialogTitle id="token-dialog-title">{t('clusters.token.title')}</DialogTitle>
      <DialogContent>
        <Accordion defaultExpanded disableGutters variant="outlined">
          <AccordionSummary expandIcon={<ExpandMore />}>
            <Typography>{t('clusters.token.generateSection')}</Typography>
          </AccordionSummary>
          <AccordionDetails>
            {token ? (
              <Stack spacing={2}>
                <Alert severity="warning">{t('clusters.token.once')}</Alert>
                <CopyField label={t('clusters.token.token')} value={token} />
                <CopyField label={t('clusters.token.command')} value={command} />
              </Stack>
            ) : (
              <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
                <Typography color="text.secondary">{t('clusters.token.explain')}</Typography>
                <Button variant="contained" disabled={create.isPending} onClick={generate}>
                  {t('clusters.generateToken')}
                </Button>
              </Stack>
            )}
          </AccordionDetails>
        </Accordion>
        <Accordion disableGutters variant="outlined">
          <AccordionSummary expandIcon={<ExpandMore />}>
            <Typography>{t('clusters.token.ownSection')}</Typography>
          </AccordionSummary>
          <AccordionDetails>
            <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
              <Typography color="text.secondary">{t('clusters.token.ownText')}</Typography>
              <Button variant="outlined" disabled>
                {t('clusters.addNew')}
              </Button>
            </Stack>
          </AccordionDetails>
        </Accordion>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('clusters.token.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
