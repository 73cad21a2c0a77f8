import { Checkbox, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { NO_ACCESS, PUBLIC_GROUP, tick, type Access } from './rules';
import type { Permissions } from './types';

const ACCESSES: Access[] = ['read', 'write', 'execute'];

/** View, edit and use per group and for everybody (spec 1 §4's tick rules); locked visibility is shown, not changed. */
export function AuthorizationsTable({
  groups,
  permissions,
  locked,
  onChange,
}: {
  groups: { id: string; name: string }[];
  permissions: Permissions;
  locked: boolean;
  onChange: (permissions: Permissions) => void;
}) {
  const { t } = useTranslation('sandboxes');
  const rows = [{ id: PUBLIC_GROUP, name: t('publicGroup') }, ...groups];
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('authorizations')}
      </Typography>
      <Table size="small" aria-label={t('authorizations')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('group')}</TableCell>
            {ACCESSES.map((access) => (
              <TableCell key={access} align="center">
                {t(`access.${access}`)}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((group) => {
            const row = permissions[group.id] ?? NO_ACCESS;
            return (
              <TableRow key={group.id}>
                <TableCell>{group.name}</TableCell>
                {ACCESSES.map((access) => (
                  <TableCell key={access} align="center" padding="checkbox">
                    <Checkbox
                      checked={row[access]}
                      disabled={locked}
                      onChange={(e) =>
                        onChange({ ...permissions, [group.id]: tick(row, access, e.target.checked) })
                      }
                      slotProps={{ input: { 'aria-label': `${group.name} ${t(`access.${access}`)}` } }}
                    />
                  </TableCell>
                ))}
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      {groups.length === 0 && (
        <Typography variant="caption" color="text.secondary">
          {t('noGroups')}
        </Typography>
      )}
    </div>
  );
}
