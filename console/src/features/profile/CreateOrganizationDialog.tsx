import { Chip, Dialog, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isEmail } from '../../lib/validation';
import { SaveCancelActions } from './SaveCancelActions';

export interface NewOrganization {
  name: string;
  admins: string[];
}

export interface CreateOrganizationDialogProps {
  open: boolean;
  saving: boolean;
  onCancel: () => void;
  /** The dialog stays open: the caller closes it when the organization exists. */
  onCreate: (organization: NewOrganization) => void;
}

/** 'Create new Organization': a name and admins typed as e-mails (chips). Enter submits. */
export function CreateOrganizationDialog({
  open,
  saving,
  onCancel,
  onCreate,
}: CreateOrganizationDialogProps) {
  const { t } = useTranslation('profile');
  return (
    <Dialog open={open} onClose={saving ? undefined : onCancel} fullWidth maxWidth="sm">
      <DialogTitle>{t('createOrganization')}</DialogTitle>
      {/* The form lives in the content: closing the dialog forgets what was typed. */}
      {open && <OrganizationForm saving={saving} onCancel={onCancel} onCreate={onCreate} />}
    </Dialog>
  );
}

const SEPARATORS = new Set(['Enter', ',', ' ', 'Tab']);

function OrganizationForm({ saving, onCancel, onCreate }: Omit<CreateOrganizationDialogProps, 'open'>) {
  const { t } = useTranslation('profile');
  const [name, setName] = useState('');
  const [admins, setAdmins] = useState<string[]>([]);
  const [entry, setEntry] = useState('');
  const entryInvalid = entry.trim() !== '' && !isEmail(entry);
  const blank = name.trim() === '';

  /** Adds the typed e-mail as a chip; false when it is not an e-mail. */
  const addEntry = () => {
    const email = entry.trim();
    if (!email || !isEmail(email)) return false;
    setAdmins((list) =>
      list.some((a) => a.toLowerCase() === email.toLowerCase()) ? list : [...list, email],
    );
    setEntry('');
    return true;
  };

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (blank || saving || entryInvalid) return;
    const typed = entry.trim();
    onCreate({ name: name.trim(), admins: typed && !admins.includes(typed) ? [...admins, typed] : admins });
  };

  const onEntryKey = (event: KeyboardEvent) => {
    if (!SEPARATORS.has(event.key)) return;
    if (entry.trim() === '') {
      // Enter on an empty admin field submits the form like everywhere else; Tab moves on.
      if (event.key !== 'Enter' && event.key !== 'Tab') event.preventDefault();
      return;
    }
    if (event.key === 'Tab' && entryInvalid) return;
    event.preventDefault();
    addEntry();
  };

  return (
    <form onSubmit={submit} noValidate>
      <DialogContent sx={{ pt: 1 }}>
        <Stack spacing={2.5} sx={{ pt: 1 }}>
          <TextField
            label={t('organizationName')}
            placeholder={t('organizationNamePlaceholder')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
            required
            fullWidth
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
          <TextField
            label={t('admins')}
            placeholder={t('adminsPlaceholder')}
            value={entry}
            onChange={(e) => setEntry(e.target.value)}
            onKeyDown={onEntryKey}
            onBlur={addEntry}
            error={entryInvalid}
            helperText={entryInvalid ? t('invalidEmail') : t('adminsHelp')}
            fullWidth
            type="email"
          />
          {admins.length > 0 && (
            <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }} data-testid="admins">
              {admins.map((admin) => (
                <Chip
                  key={admin}
                  label={admin}
                  onDelete={saving ? undefined : () => setAdmins((list) => list.filter((a) => a !== admin))}
                />
              ))}
            </Stack>
          )}
        </Stack>
      </DialogContent>
      <SaveCancelActions saving={saving} canSave={!blank && !entryInvalid} onCancel={onCancel} />
    </form>
  );
}
