import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { PeoplePicker } from '../common/PeoplePicker';
import { QuotaSliders } from '../common/QuotaSliders';
import { useSaveOrganization } from '../queries';
import { organizationMaxima, RESOURCES, toApi, toDisplay, type Resource } from '../quota';
import type { Capacity, OrganizationItem, Resources, Username } from '../types';

/** Automatic provisioner limits step by 0.5 from 0 (spec 3 §5). */
const LIMIT_STEP = 0.5;
/** A limit as typed: a number of cores / GB, at least 0 and on the 0.5 step. */
const limitAllowed = (text: string) => {
  const value = Number(text);
  return text.trim() !== '' && Number.isFinite(value) && value >= 0 && Number.isInteger(value / LIMIT_STEP);
};

/**
 * Create Organization (no `organization`) and Edit Organization (spec 3 §2.5, §5): name,
 * administrators and three quota sliders capped by the free cluster capacity (plus, editing,
 * the organization's own quota). Editing, the super admin's other fields of the organization
 * (spec 3 §3, §7) follow: use free quota, enable the automatic provisioner, lock its limits,
 * and the provisioner limits (CPU cores, memory and disk GB: numeric, minimum 0, step 0.5,
 * disabled, and neither checked nor sent, unless the provisioner is enabled). Save is disabled
 * while the trimmed name is empty or an enabled limit is not allowed; Enter submits. Closes
 * only when the save succeeded.
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
  const [useFree, setUseFree] = useState(organization?.use_free ?? false);
  const [enableProvisioner, setEnableProvisioner] = useState(organization?.enable_provisioner ?? false);
  const [lockProvisioner, setLockProvisioner] = useState(organization?.lock_provisioner ?? false);
  const [limits, setLimits] = useState<Record<Resource, string>>(() => {
    const shown = toDisplay(organization?.automatic_resources ?? { cpu: 0, memory: 0, disk: 0 });
    return { cpu: String(shown.cpu), memory: String(shown.memory), disk: String(shown.disk) };
  });
  const maxima = organizationMaxima(capacity.free, organization?.quota);
  const trimmed = name.trim();
  // The limits only count (and are only sent) while the provisioner is enabled.
  const limitsAllowed = !enableProvisioner || RESOURCES.every((r) => limitAllowed(limits[r]));
  const canSave = Boolean(trimmed) && (!organization || limitsAllowed) && !save.isPending;

  const submit = () => {
    if (!canSave) return;
    const superFields = organization
      ? {
          use_free: useFree,
          enable_provisioner: enableProvisioner,
          lock_provisioner: lockProvisioner,
          ...(enableProvisioner && {
            automatic_resources: toApi({
              cpu: Number(limits.cpu),
              memory: Number(limits.memory),
              disk: Number(limits.disk),
            }),
          }),
        }
      : {};
    save.mutate(
      { id: organization?.id, name: trimmed, admins, quota: toApi(quota), ...superFields },
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
          {organization && (
            <>
              <FormControlLabel
                control={<Switch checked={useFree} onChange={(e) => setUseFree(e.target.checked)} />}
                label={t('organizations.useFree')}
              />
              <Divider />
              <Typography variant="subtitle2">{t('organizations.provisioner')}</Typography>
              <FormControlLabel
                control={
                  <Switch
                    checked={enableProvisioner}
                    onChange={(e) => setEnableProvisioner(e.target.checked)}
                  />
                }
                label={t('organizations.enableProvisioner')}
              />
              <FormControlLabel
                control={
                  <Switch checked={lockProvisioner} onChange={(e) => setLockProvisioner(e.target.checked)} />
                }
                label={t('organizations.lockProvisioner')}
              />
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {RESOURCES.map((r) => (
                  <TextField
                    key={r}
                    type="number"
                    size="small"
                    label={t(`organizations.limits.${r}`)}
                    value={limits[r]}
                    disabled={!enableProvisioner}
                    error={enableProvisioner && !limitAllowed(limits[r])}
                    helperText={
                      enableProvisioner && !limitAllowed(limits[r]) ? t('organizations.limitRule') : ' '
                    }
                    onChange={(e) => setLimits({ ...limits, [r]: e.target.value })}
                    slotProps={{ htmlInput: { min: 0, step: LIMIT_STEP } }}
                    sx={{ flex: 1 }}
                  />
                ))}
              </Stack>
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('cancel', { ns: 'common' })}</Button>
        <Button variant="contained" disabled={!canSave} onClick={submit}>
          {t('save', { ns: 'common' })}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
