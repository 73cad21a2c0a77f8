import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BlockingWorkflow } from './types';

export interface Blocked {
  uuid: string;
  name: string;
  workflows: BlockingWorkflow[];
}

/**
 * The sandboxes a first deletion left because workflows use them, as a checklist with those
 * workflows: only checked ones are deleted, by force (spec 1 §2.7).
 */
export function ForcedDeleteDialog({
  blocked,
  busy,
  onDelete,
  onCancel,
}: {
  blocked: Blocked[] | null;
  busy: boolean;
  onDelete: (ids: string[]) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('sandboxes');
  return (
    <Dialog open={blocked !== null} onClose={busy ? undefined : onCancel} maxWidth="sm" fullWidth>
      <DialogTitle>{t('forcedTitle')}</DialogTitle>
      {blocked && <Checklist blocked={blocked} busy={busy} onDelete={onDelete} onCancel={onCancel} />}
    </Dialog>
  );
}

function Checklist({
  blocked,
  busy,
  onDelete,
  onCancel,
}: {
  blocked: Blocked[];
  busy: boolean;
  onDelete: (ids: string[]) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('sandboxes');
  const [checked, setChecked] = useState<string[]>([]);
  const toggle = (uuid: string) =>
    setChecked(checked.includes(uuid) ? checked.filter((id) => id !== uuid) : [...checked, uuid]);
  return (
    <>
      <DialogContent>
        <DialogContentText sx={{ mb: 1 }}>{t('forcedText')}</DialogContentText>
        <FormGroup>
          {blocked.map((item) => (
            <FormControlLabel
              key={item.uuid}
              control={<Checkbox checked={checked.includes(item.uuid)} onChange={() => toggle(item.uuid)} />}
              label={
                <>
                  <Typography component="span">{item.name}</Typography>
                  <Typography
                    component="span"
                    variant="body2"
                    color="text.secondary"
                    sx={{ display: 'block' }}
                  >
                    {t('usedBy', { workflows: item.workflows.map((w) => w.name).join(', ') })}
                  </Typography>
                </>
              }
            />
          ))}
        </FormGroup>
        <Typography
          variant="caption"
          color="warning.main"
          component="p"
          sx={{ mt: 2 }}
          data-testid="forced-note"
        >
          {t('forcedNote')}
        </Typography>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          {t('cancel', { ns: 'common' })}
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={() => onDelete(checked)}
          disabled={busy || checked.length === 0}
        >
          {t('delete')}
        </Button>
      </DialogActions>
    </>
  );
}
