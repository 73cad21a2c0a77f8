import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { PeoplePicker } from '../common/PeoplePicker';
import { QuotaSliders } from '../common/QuotaSliders';
import { useSaveOrganization } from '../queries';
import { organizationMaxima, toApi, toDisplay } from '../quota';
import type { Capacity, OrganizationItem, Resources, Username } from '../types';

/**
 * Create Organization (no `organization`) and Edit Organization (spec 3 §2.5, §5): name,
 * administrators and three quota sliders capped by the free cluster capacity (plus, editing,
 * the organization's own quota). Save is disabled while the trimmed name is empty; Enter
 * submits. Closes only when the save succeeded.
 */
export function OrganizationDialog({
  organization,
  capacity,
  people,
  onClose,
}: {
  organization?: OrganizationItem;
  capacity: Capacity;
  people: readonly Username[];
  onClose: () => void;
}) {
  const { t } = useTranslation('settings');
  const save = useSaveOrganization();
  const [name, setName] = useState(organization?.name ?? '');
  const [admins, setAdmins] = useState<string[]>(organization?.admins ?? []);
  const [quota, setQuota] = useState<Resources>(
    toDisplay(organization?.quota ?? { cpu: 0, memory: 0, disk: 0 }),
  );
  const maxima = organizationMaxima(capacity.free, organization?.quota);
  const trimmed = name.trim();

  const submit = () => {
    if (!trimmed || save.isPending) return;
    save.mutate(
      { id: organization?.id, name: trimmed, admins, quota: toApi(quota) },
      {
        onSuccess: () => {
          toastSuccess(
            t(organization ? 'organizations.updated' : 'organizations.created', { name: trimmed }),
          );
          onClose();
        },
        onError: (e) => toastFailure(e),
      },
    );
  };

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t(organization ? 'organizations.editTitle' : 'organizations.createTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            autoFocus
            label={t('organizations.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === 'NumpadEnter') submit();
            }}
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
          <PeoplePicker
            label={t('organizations.admins')}
            people={people}
            value={admins}
            onChange={setAdmins}
          />
          <Typography variant="subtitle2">{t('organizations.quota')}</Typography>
          {!maxima && (
            <Typography variant="caption" color="text.secondary">
              {t('organizations.capacityUnknown')}
            </Typography>
          )}
          <QuotaSliders values={quota} maxima={maxima} onChange={setQuota} />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('cancel', { ns: 'common' })}</Button>
        <Button variant="contained" disabled={!trimmed || save.isPending} onClick={submit}>
          {t('save', { ns: 'common' })}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
