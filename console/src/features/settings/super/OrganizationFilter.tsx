import { MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { OrganizationItem } from '../types';

/** The super admin's organization filter: All ('') or one organization. */
export function OrganizationFilter({
  organizations,
  value,
  onChange,
}: {
  organizations: readonly OrganizationItem[];
  value: string;
  onChange: (organization: string) => void;
}) {
  const { t } = useTranslation('settings');
  return (
    <TextField
      select
      size="small"
      label={t('superFilter.organization')}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      sx={{ minWidth: 200 }}
      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
    >
      <MenuItem value="">{t('superFilter.all')}</MenuItem>
      {organizations.map((o) => (
        <MenuItem key={o.id} value={o.id}>
          {o.name}
        </MenuItem>
      ))}
    </TextField>
  );
}
