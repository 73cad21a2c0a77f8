import { Button, Stack } from '@mui/material';
import type { ReactNode } from 'react';
import { SearchField } from './SearchField';
import type { Search } from './table';

/**
 * The row above a settings table: its search box (`searchLabel` for screen readers), any
 * filters (`children`), and the table's add button at the right end.
 */
export function TableToolbar({
  search,
  searchLabel,
  action,
  children,
}: {
  search: Search;
  searchLabel: string;
  action: { label: string; icon: ReactNode; onClick: () => void; disabled?: boolean };
  children?: ReactNode;
}) {
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' } }}>
      <SearchField value={search.text} onChange={search.onChange} label={searchLabel} />
      {children}
      <Button
        variant="contained"
        startIcon={action.icon}
        disabled={action.disabled}
        onClick={action.onClick}
        sx={{ ml: { sm: 'auto !important' } }}
      >
        {action.label}
      </Button>
    </Stack>
  );
}
