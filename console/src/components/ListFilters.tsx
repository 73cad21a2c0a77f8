import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import SearchIcon from '@mui/icons-material/Search';
import { Button, FormControlLabel, InputAdornment, MenuItem, Stack, Switch, TextField } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface ListFilterValues<V extends string> {
  mine: boolean;
  visibility: '' | V;
  tag: string;
}

/**
 * Search, Mine, visibility, a known tag and Delete Selected, shared by the sandbox and workflow lists
 * (spec 1 §2.7). Labels come from the list's own namespace, which holds the same keys in both.
 */
export function ListFilters<V extends string>({
  namespace,
  visibilities,
  search,
  filters,
  tags,
  selected,
  onSearch,
  onFilters,
  onDeleteSelected,
  actions,
}: {
  namespace: 'sandboxes' | 'workflows';
  /** The visibility choices in the order the list offers them; each is also its label's key. */
  visibilities: readonly V[];
  search: string;
  filters: ListFilterValues<V>;
  tags: string[];
  selected: number;
  onSearch: (search: string) => void;
  onFilters: (filters: ListFilterValues<V>) => void;
  onDeleteSelected: () => void;
  /** Buttons after Delete Selected. */
  actions?: ReactNode;
}) {
  const { t } = useTranslation(namespace);
  return (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      spacing={1.5}
      useFlexGap
      sx={{ alignItems: { sm: 'center' }, flexWrap: 'wrap' }}
    >
      <TextField
        size="small"
        type="search"
        placeholder={t('searchPlaceholder')}
        value={search}
        onChange={(e) => onSearch(e.target.value)}
        sx={{ minWidth: { sm: 340 } }}
        slotProps={{
          htmlInput: { 'aria-label': t('search') },
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon fontSize="small" />
              </InputAdornment>
            ),
          },
        }}
      />
      <FormControlLabel
        control={
          <Switch
            checked={filters.mine}
            onChange={(e) => onFilters({ ...filters, mine: e.target.checked })}
          />
        }
        label={t('mine')}
      />
      <TextField
        select
        size="small"
        label={t('visibility')}
        value={filters.visibility}
        onChange={(e) => onFilters({ ...filters, visibility: e.target.value as '' | V })}
        sx={{ minWidth: 140 }}
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">{t('visibilityAll')}</MenuItem>
        {visibilities.map((visibility) => (
          <MenuItem key={visibility} value={visibility}>
            {t(visibility)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('tag')}
        value={tags.includes(filters.tag) ? filters.tag : ''}
        onChange={(e) => onFilters({ ...filters, tag: e.target.value })}
        sx={{ minWidth: 140 }}
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">{t('tagAll')}</MenuItem>
        {tags.map((tag) => (
          <MenuItem key={tag} value={tag}>
            {tag}
          </MenuItem>
        ))}
      </TextField>
      <Stack direction="row" spacing={1} sx={{ ml: { sm: 'auto' } }}>
        <Button
          color="error"
          variant="outlined"
          startIcon={<DeleteOutlineIcon />}
          disabled={selected === 0}
          onClick={onDeleteSelected}
        >
          {t('deleteSelected')}
          {selected > 0 ? ` (${selected})` : ''}
        </Button>
        {actions}
      </Stack>
    </Stack>
  );
}
