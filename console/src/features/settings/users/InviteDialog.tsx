import {
  Autocomplete,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { useInvite } from '../queries';
import type { GroupItem, OrganizationItem } from '../types';

/** Addresses typed so far: split on spaces (and commas), blanks dropped, no repeats. */
export const emailTags = (current: readonly string[], typed: string) => [
  ...new Set([...current, ...typed.split(/[\s,]+/).filter(Boolean)]),
];

/**
 * Invite new User (spec 3 §5): e-mails as tags separated by space, a default group; only the
 * super admin chooses the organization (`organizations` given), for others it is fixed.
 */
export function InviteDialog({
  open,
  organization,
  organizations,
  groups,
  onClose,
}: {
  open: boolean;
  organization: string | null;
  organizations?: readonly OrganizationItem[];
  groups: readonly GroupItem[];
  onClose: () => void;
}) {
  const { t } = useTranslation('settings');
  const invite = useInvite();
  const [emails, setEmails] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const [chosenOrganization, setChosenOrganization] = useState(organization ?? '');
  const [group, setGroup] = useState('');
  const organizationGroups = groups.filter((g) => g.organization === chosenOrganization);
  const all = emailTags(emails, typed);

  const submit = () =>
    invite.mutate(
      {
        users: all,
        organization: organizations ? chosenOrganization : undefined,
        default_group: group || undefined,
      },
      {
        onSuccess: (sent) => {
          toastSuccess(t('invite.sent', { count: sent.length }));
          onClose();
        },
        onError: (e) => toastFailure(e),
      },
    );

  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{t('invite.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Autocomplete
            multiple
            freeSolo
            options={[]}
            value={emails}
            inputValue={typed}
            onChange={(_e, value) => setEmails(emailTags([], value.join(' ')))}
            onInputChange={(_e, value) => {
              // A space ends an address: it becomes a tag.
              if (/[\s,]/.test(value)) {
                setEmails(emailTags(emails, value));
                setTyped('');
              } else setTyped(value);
            }}
            renderValue={(value, getItemProps) =>
              value.map((email, index) => {
                const { key, ...props } = getItemProps({ index });
                return <Chip key={key} size="small" label={email} {...props} />;
              })
            }
            renderInput={(params) => (
              <TextField {...params} label={t('invite.emails')} helperText={t('invite.emailsHelp')} />
            )}
          />
          {organizations && (
            <TextField
              select
              label={t('invite.organization')}
              value={chosenOrganization}
              onChange={(e) => {
                setChosenOrganization(e.target.value);
                setGroup('');
              }}
            >
              {organizations.map((o) => (
                <MenuItem key={o.id} value={o.id}>
                  {o.name}
                </MenuItem>
              ))}
            </TextField>
          )}
          <TextField
            select
            label={t('invite.group')}
            value={group}
            onChange={(e) => setGroup(e.target.value)}
          >
            <MenuItem value="">
              <em>{t('invite.noGroup')}</em>
            </MenuItem>
            {organizationGroups.map((g) => (
              <MenuItem key={g.id} value={g.id}>
                {g.name}
              </MenuItem>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('cancel', { ns: 'common' })}</Button>
        <Button
          variant="contained"
          disabled={all.length === 0 || !chosenOrganization || invite.isPending}
          onClick={submit}
        >
          {t('invite.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
