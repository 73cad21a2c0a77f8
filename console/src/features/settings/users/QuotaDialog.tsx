import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Stack,
  Switch,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { QuotaSliders } from '../common/QuotaSliders';
import { useSetUserQuota } from '../queries';
import { convertQuota, FIXED_STEPS, PERCENT_STEPS, toDisplay, uidAllowed, userQuotaMaxima } from '../quota';
import type { GroupTable, GroupTableUser } from '../types';
import { quotaBody, shownQuota } from './members';

/**
 * Edit Quota (spec 3 §4, §5): fixed values (steps 0.5 cores, 0.5 GB, 0.1 GB, at most what the
 * other members leave of the group's quota) or percentages (0–100, steps 1, 1, 0.5); switching
 * converts the values; ticks at 25/50/75 %. The UID is at least 1000. Save is disabled until
 * something changes; the modal closes only when the API accepts.
 */
export function QuotaDialog({
  group,
  member,
  onClose,
}: {
  group: GroupTable;
  member: GroupTableUser;
  onClose: () => void;
}) {
  const { t } = useTranslation('settings');
  const { t: common } = useTranslation();
  const save = useSetUserQuota();
  const [percentage, setPercentage] = useState(member.quota.use_percentage);
  const [values, setValues] = useState(shownQuota(member.quota));
  const [uid, setUid] = useState(member.uid === null ? '' : String(member.uid));
  const others = group.users.filter((u) => u.id !== member.id).map((u) => u.quota);
  const maxima = userQuotaMaxima(group.quota, others, percentage);
  const uidValue = uid.trim() === '' ? null : Number(uid);
  const uidOk = uidValue === null ? member.uid === null : uidAllowed(uidValue);
  const start = shownQuota(member.quota);
  const changed =
    percentage !== member.quota.use_percentage ||
    values.cpu !== start.cpu ||
    values.memory !== start.memory ||
    values.disk !== start.disk ||
    uidValue !== member.uid;

  const switchMode = (toPercentage: boolean) => {
    setValues(
      convertQuota(
        values,
        toDisplay(group.quota),
        toPercentage,
        userQuotaMaxima(group.quota, others, toPercentage),
      ),
    );
    setPercentage(toPercentage);
  };

  const submit = () =>
    save.mutate(
      { user: member.id, ...quotaBody(group.id, values, percentage, uidValue) },
      {
        onSuccess: () => {
          toastSuccess(t('members.quotaSaved', { name: member.email }));
          onClose();
        },
        onError: (e) => toastFailure(e),
      },
    );

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>
        {t('members.quotaTitle', { name: member.name || member.email, group: group.name })}
      </DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <FormControlLabel
            control={<Switch checked={percentage} onChange={(e) => switchMode(e.target.checked)} />}
            label={t('members.percentage')}
          />
          <QuotaSliders
            values={values}
            maxima={maxima}
            steps={percentage ? PERCENT_STEPS : FIXED_STEPS}
            percentage={percentage}
            ticks
            onChange={setValues}
          />
          <TextField
            label={t('columns.uid')}
            value={uid}
            type="number"
            onChange={(e) => setUid(e.target.value)}
            error={!uidOk}
            helperText={t('members.uidRule')}
            slotProps={{ htmlInput: { min: 1000, step: 1 } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{common('cancel')}</Button>
        <Button variant="contained" disabled={!changed || !uidOk || save.isPending} onClick={submit}>
          {common('save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
