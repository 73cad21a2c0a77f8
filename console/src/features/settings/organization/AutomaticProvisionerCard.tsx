import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, api, unwrap } from '../../../api/client';
import { keys } from '../../../api/queries';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import type { CurrentOrganization } from '../clusters/queries';
import type { Resources } from '../types';

type Saved = Pick<
  CurrentOrganization,
  'id' | 'automatic_resources' | 'use_automatic_resources' | 'enable_provisioner' | 'lock_provisioner'
>;

/** Cores and GB on screen; millicores and MB in the API (spec 3 §9). */
const shown = (r: Resources) => ({
  cpu: String(r.cpu / 1000),
  memory: String(r.memory / 1024),
  disk: String(r.disk / 1024),
});
const sent = (r: Record<keyof Resources, string>): Resources => ({
  cpu: Math.round(Number(r.cpu) * 1000),
  memory: Math.round(Number(r.memory) * 1024),
  disk: Math.round(Number(r.disk) * 1024),
});
const valid = (v: string) => v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0;

/** The organization admin's body of PUT /organizations/{id} (spec 3 §7). */
function useSaveProvisioner() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; useAutomaticLimit: boolean; provisionerResources: Resources }) =>
      unwrap(
        api.PUT('/organizations/{id}', {
          params: { path: { id: v.id } },
          body: {
            id: v.id,
            useAutomaticLimit: v.useAutomaticLimit,
            provisionerResources: v.provisionerResources,
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.organization }),
  });
}

/**
 * Organization Settings › Cluster Managers › Automatic Provisioner (spec 3 §2.3, §5, §6: shown to
 * organization admins, not to the super admin). With it on, runs of the organization's groups may
 * go above their group quotas by up to these amounts of the platform's capacity that no group
 * quota holds (admission: operator/src/controllers/run/admission-provisioner.ts). The limits are
 * numbers ≥ 0 in steps of 0.5, editable only when the super admin enabled the provisioner for
 * the organization, has not locked it, and the switch is on. Save is disabled until something changes.
 */
export function AutomaticProvisionerCard({ saved }: { saved: Saved }) {
  const { t } = useTranslation('provisioner');
  const save = useSaveProvisioner();
  const [current, setCurrent] = useState(saved);
  const [on, setOn] = useState(saved.use_automatic_resources);
  const [limits, setLimits] = useState(shown(saved.automatic_resources));
  const editable = current.enable_provisioner && !current.lock_provisioner;
  const allValid = Object.values(limits).every(valid);
  const before = shown(current.automatic_resources);
  const changed =
    on !== current.use_automatic_resources ||
    (Object.keys(limits) as (keyof Resources)[]).some((k) => Number(limits[k]) !== Number(before[k]));

  const submit = () =>
    save.mutate(
      { id: current.id, useAutomaticLimit: on, provisionerResources: sent(limits) },
      {
        onSuccess: (org) => {
          setCurrent(org);
          setOn(org.use_automatic_resources);
          setLimits(shown(org.automatic_resources));
          toastSuccess(t('saved'));
        },
        onError: (e) => toastFailure(e),
      },
    );

  const field = (k: keyof Resources) => (
    <TextField
      key={k}
      size="small"
      type="number"
      label={t(k)}
      value={limits[k]}
      disabled={!editable || !on}
      error={!valid(limits[k])}
      slotProps={{ htmlInput: { min: 0, step: 0.5 } }}
      onChange={(e) => setLimits((all) => ({ ...all, [k]: e.target.value }))}
    />
  );

  return (
    <Card variant="outlined" component="section" aria-label={t('title')}>
      <CardContent>
        <Stack spacing={2} sx={{ maxWidth: 640 }}>
          <Typography variant="h6" component="h3">
            {t('title')}
          </Typography>
          <Typography color="text.secondary">{t('explain')}</Typography>
          {!current.enable_provisioner && <Alert severity="info">{t('notEnabled')}</Alert>}
          {current.enable_provisioner && current.lock_provisioner && (
            <Alert severity="info">{t('locked')}</Alert>
          )}
          <FormControlLabel
            control={<Switch checked={on} disabled={!editable} onChange={(e) => setOn(e.target.checked)} />}
            label={t('use')}
          />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {(['cpu', 'memory', 'disk'] as const).map(field)}
          </Stack>
          {save.error instanceof ApiError && save.error.status < 500 && save.error.message && (
            <Alert severity="error">{save.error.message}</Alert>
          )}
          <Box>
            <Button
              variant="contained"
              disabled={!editable || !changed || !allValid || save.isPending}
              onClick={submit}
            >
              {t('save')}
            </Button>
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}
