import AddIcon from '@mui/icons-material/Add';
import SearchIcon from '@mui/icons-material/Search';
import {
  Avatar,
  Box,
  CircularProgress,
  FormControlLabel,
  IconButton,
  InputAdornment,
  List,
  ListItem,
  ListItemAvatar,
  ListItemText,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SANDBOX_MIME } from './dnd';
import type { SandboxRef } from './graph/items';
import type { VisibilityType } from './types';

export interface PaletteSandbox {
  uuid: string;
  name: string;
  author: string;
  author_id: string;
  avatar: string;
  tags: string[];
  visibility: { type: VisibilityType };
  variables: { name: string; value: string }[];
  /** The operator's phase: Ready, Pending or Error. */
  phase?: string;
}

export interface PaletteFilters {
  search: string;
  mine: boolean;
  visibility: '' | VisibilityType;
  tag: string;
}

/** The palette's search (name, owner or tag, any case) and filters. */
export function filterPalette<S extends PaletteSandbox>(
  sandboxes: S[],
  filters: PaletteFilters,
  meId: string,
): S[] {
  const needle = filters.search.trim().toLowerCase();
  return sandboxes.filter(
    (s) =>
      (!needle ||
        s.name.toLowerCase().includes(needle) ||
        s.author.toLowerCase().includes(needle) ||
        s.tags.some((tag) => tag.toLowerCase().includes(needle))) &&
      (!filters.mine || s.author_id === meId) &&
      (!filters.visibility || s.visibility.type === filters.visibility) &&
      (!filters.tag || s.tags.includes(filters.tag)),
  );
}

export const toRef = (s: PaletteSandbox): SandboxRef => ({
  uuid: s.uuid,
  name: s.name,
  owner: s.author_id,
  variables: s.variables,
});

/** The searchable list of sandboxes dragged onto the canvas (spec 2 §2). */
export function Palette({
  sandboxes,
  loading,
  meId,
  onAdd,
}: {
  sandboxes: PaletteSandbox[];
  loading: boolean;
  meId: string;
  onAdd: (sandbox: SandboxRef) => void;
}) {
  const { t } = useTranslation('workflows');
  const [filters, setFilters] = useState<PaletteFilters>({
    search: '',
    mine: false,
    visibility: '',
    tag: '',
  });
  const tags = useMemo(() => [...new Set(sandboxes.flatMap((s) => s.tags))].sort(), [sandboxes]);
  const shown = useMemo(() => filterPalette(sandboxes, filters, meId), [sandboxes, filters, meId]);
  const set = (patch: Partial<PaletteFilters>) => setFilters({ ...filters, ...patch });

  return (
    <Box
      component="aside"
      aria-label={t('palette')}
      sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0, p: 1.5, gap: 1 }}
    >
      <Typography variant="subtitle1">{t('palette')}</Typography>
      <TextField
        size="small"
        type="search"
        placeholder={t('paletteSearch')}
        value={filters.search}
        onChange={(e) => set({ search: e.target.value })}
        slotProps={{
          htmlInput: { 'aria-label': t('paletteSearch') },
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
          <Switch size="small" checked={filters.mine} onChange={(e) => set({ mine: e.target.checked })} />
        }
        label={t('mine')}
        // MUI's -11px suits a medium switch; a small one's track (7px in) would be cut at the edge.
        sx={{ ml: '-7px' }}
      />
      <Stack direction="row" spacing={1}>
        <TextField
          select
          size="small"
          label={t('visibility')}
          value={filters.visibility}
          onChange={(e) => set({ visibility: e.target.value as PaletteFilters['visibility'] })}
          sx={{ flex: 1 }}
        >
          <MenuItem value="">{t('visibilityAll')}</MenuItem>
          <MenuItem value="private">{t('private')}</MenuItem>
          <MenuItem value="public">{t('public')}</MenuItem>
          <MenuItem value="group">{t('group')}</MenuItem>
        </TextField>
        <TextField
          select
          size="small"
          label={t('tag')}
          value={filters.tag}
          onChange={(e) => set({ tag: e.target.value })}
          sx={{ flex: 1 }}
        >
          <MenuItem value="">{t('tagAll')}</MenuItem>
          {tags.map((tag) => (
            <MenuItem key={tag} value={tag}>
              {tag}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <Typography variant="caption" color="text.secondary">
        {t('paletteHint')}
      </Typography>
      {loading && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <CircularProgress size={16} />
          <Typography variant="body2">{t('paletteLoading')}</Typography>
        </Stack>
      )}
      {!loading && shown.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          {t('paletteEmpty')}
        </Typography>
      )}
      <List dense sx={{ overflowY: 'auto', flex: 1, minHeight: 0 }}>
        {shown.map((s) => (
          <ListItem
            key={s.uuid}
            draggable
            data-testid="palette-entry"
            onDragStart={(event) => {
              event.dataTransfer.setData(SANDBOX_MIME, JSON.stringify(toRef(s)));
              event.dataTransfer.effectAllowed = 'copy';
            }}
            sx={{ cursor: 'grab', borderRadius: 1, '&:hover': { bgcolor: 'action.hover' } }}
            secondaryAction={
              <IconButton
                edge="end"
                aria-label={t('addToCanvas', { name: s.name })}
                onClick={() => onAdd(toRef(s))}
              >
                <AddIcon />
              </IconButton>
            }
          >
            <ListItemAvatar sx={{ minWidth: 40 }}>
              <Avatar src={s.avatar || undefined} sx={{ width: 28, height: 28 }}>
                {s.name.slice(0, 1).toUpperCase()}
              </Avatar>
            </ListItemAvatar>
            <ListItemText primary={s.name} secondary={s.author} slotProps={{ primary: { noWrap: true } }} />
          </ListItem>
        ))}
      </List>
    </Box>
  );
}
