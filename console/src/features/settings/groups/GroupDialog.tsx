import EditOutlined from '@mui/icons-material/EditOutlined';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { toasts } from '../../toasts/toast-store';
import { PeoplePicker } from '../common/PeoplePicker';
import { QuotaSliders } from '../common/QuotaSliders';
import { useSaveGroup } from '../queries';
import { MIN_GID, toApi, toDisplay } from '../quota';
import type { GroupItem, Resources, Username } from '../types';

/**
 * Create Group (no `group`) and Edit Group (spec 3 §2.3, §5): the trimmed name is required
 * (Enter submits); editing, the name toggles between display and edit mode and a GID below
 * 1000 raises the 'invalid gid' toast and is not applied. The quota sliders stop at what the
 * organization's quota leaves (`maxima`, cores / GB). Closes only when the save succeeded.
 */
export function GroupDialog({
  open,
  organization,
  group,
  maxima,
  people,
  onClose,
}: {
  open: boolean;
  organization: string;
  group?: GroupItem;
  maxima: Resources | null;
  people: readonly Username[];
  onClose: () => void;
}) {
  const { t } = useTranslation('settings');
  const save = useSaveGroup();
  const [name, setName] = useState(group?.name ?? '');
  const [editingName, setEditingName] = useState(!group);
  const [gid, setGid] = useState<number | undefined>(group?.gid);
  const [gidText, setGidText] = useState(group ? String(group.gid) : '');
  const [quota, setQuota] = useState<Resources>(toDisplay(group?.quota ?? { cpu: 0, memory: 0, disk: 0 }));
  const [admins, setAdmins] = useState<string[]>(group?.admins ?? []);
  const [members, setMembers] = useState<string[]>(group?.members ?? []);
  const trimmed = name.trim();

  const applyGid = () => {
    if (gidText.trim() === '') return setGid(undefined);
    const value = Number(gidText);
    if (!Number.isInteger(value) || value < MIN_GID) {
      toasts.show({ title: t('groups.invalidGid'), text: t('groups.gidRule'), type: 'warning' });
      setGidText(gid === undefined ? '' : String(gid));
      return;
    }
    setGid(value);
  };

  const submit = () => {
    if (!trimmed) return;
    save.mutate(
      {
        id: group?.id,
        organization: group ? undefined : organization,
        name: trimmed,
        gid,
        quota: toApi(quota),
        admins,
        members,
      },
      {
        onSuccess: () => {
          toastSuccess(t(group ? 'groups.updated' : 'groups.created', { name: trimmed }));
          onClose();
        },
        onError: (e) => toastFailure(e),
      },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t(group ? 'groups.editTitle' : 'groups.createTitle')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {editingName ? (
            <TextField
              autoFocus
              label={t('groups.name')}
              value={name}
              onChange={(e) => setName(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === 'NumpadEnter') submit();
              }}
              slotProps={{ htmlInput: { maxLength: 100 } }}
            />
          ) : (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="h6" component="p">
                {name}
              </Typography>
              <Tooltip title={t('groups.rename')}>
                <IconButton aria-label={t('groups.rename')} onClick={() => setEditingName(true)}>
                  <EditOutlined fontSize="small" />
                </IconButton>
              </Tooltip>
            </Stack>
          )}
          {group && (
            <TextField
              label={t('groups.gid')}
              value={gidText}
              onChange={(e) => setGidText(e.target.value)}
              onBlur={applyGid}
              onKeyDown={(e) => {
                if (e.key === 'Enter') applyGid();
              }}
              helperText={t('groups.gidRule')}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            />
          )}
          <PeoplePicker label={t('groups.admins')} people={people} value={admins} onChange={setAdmins} />
          <PeoplePicker label={t('groups.members')} people={people} value={members} onChange={setMembers} />
          <Typography variant="subtitle2">{t('groups.quota')}</Typography>
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
