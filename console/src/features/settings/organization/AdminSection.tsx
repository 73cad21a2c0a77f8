import ArrowBack from '@mui/icons-material/ArrowBack';
import ArrowForward from '@mui/icons-material/ArrowForward';
import {
  Alert,
  Box,
  Button,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useOrganization } from '../../../api/queries';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { Loaded } from '../common/Loaded';
import { useOrganizationUsers, useSetOrganizationAdmins } from '../queries';
import type { UserItem } from '../types';
import { adminsChanged, moveAdmin } from './admin-lists';

const DRAG_TYPE = 'application/x-sandflow-user';

/**
 * Organization Settings › Admin (spec 3 §2.3): the members in two lists, users and
 * organization admins, each with a filter; a person is dragged from one to the other (or
 * moved with the arrow button, for keyboards and touch); Save sends the admins.
 */
export default function AdminSection() {
  const organization = useOrganization();
  const users = useOrganizationUsers();
  return (
    <Loaded queries={[organization, users]}>
      {() =>
        organization.data ? (
          <AdminLists
            key={organization.data.admins.join()}
            organization={organization.data.id}
            saved={organization.data.admins}
            users={users.data!}
          />
        ) : (
          <NoOrganization />
        )
      }
    </Loaded>
  );
}

function NoOrganization() {
  const { t } = useTranslation('settings');
  return <Alert severity="info">{t('noCurrentOrganization')}</Alert>;
}

function AdminLists({
  organization,
  saved,
  users,
}: {
  organization: string;
  saved: string[];
  users: readonly UserItem[];
}) {
  const { t } = useTranslation('settings');
  const save = useSetOrganizationAdmins();
  const [admins, setAdmins] = useState<string[]>(saved);
  const move = (id: string, toAdmins: boolean) => setAdmins((current) => moveAdmin(current, id, toAdmins));
  const people = users.filter((u) => !admins.includes(u.id));
  const adminPeople = admins.map((id) => users.find((u) => u.id === id)).filter((u): u is UserItem => !!u);

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <PeopleList title={t('admin.users')} people={people} toAdmins onMove={move} />
        <PeopleList title={t('admin.admins')} people={adminPeople} toAdmins={false} onMove={move} />
      </Stack>
      <Box>
        <Button
          variant="contained"
          disabled={!adminsChanged(saved, admins) || save.isPending}
          onClick={() =>
            save.mutate(
              { organization, admins },
              {
                onSuccess: () => toastSuccess(t('admin.saved')),
                onError: (e) => toastFailure(e),
              },
            )
          }
        >
          {t('save', { ns: 'common' })}
        </Button>
      </Box>
    </Stack>
  );
}

/** One list; dropping a person from the other list here moves them (toAdmins: this is the users list). */
function PeopleList({
  title,
  people,
  toAdmins,
  onMove,
}: {
  title: string;
  people: readonly UserItem[];
  toAdmins: boolean;
  onMove: (id: string, toAdmins: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const [filter, setFilter] = useState('');
  const [over, setOver] = useState(false);
  const needle = filter.trim().toLowerCase();
  const shown = people.filter(
    (p) => !needle || p.fullName.toLowerCase().includes(needle) || p.email.toLowerCase().includes(needle),
  );
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const id = e.dataTransfer.getData(DRAG_TYPE);
    // Dropped on the users list: no longer an admin; on the admins list: an admin.
    if (id) onMove(id, !toAdmins);
  };
  return (
    <Paper
      variant="outlined"
      sx={{ flex: 1, p: 2, minHeight: 280, borderColor: over ? 'primary.main' : undefined }}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      aria-label={title}
      role="region"
    >
      <Typography variant="subtitle1" gutterBottom>
        {title} ({people.length})
      </Typography>
      <TextField
        size="small"
        fullWidth
        placeholder={t('admin.filter')}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        slotProps={{ htmlInput: { 'aria-label': t('admin.filterNamed', { list: title }) } }}
      />
      <List dense sx={{ maxHeight: 360, overflow: 'auto' }}>
        {shown.length === 0 && (
          <ListItem>
            <ListItemText secondary={t('noData')} />
          </ListItem>
        )}
        {shown.map((p) => (
          <ListItem
            key={p.id}
            draggable
            onDragStart={(e) => {
              e.dataTransfer.setData(DRAG_TYPE, p.id);
              e.dataTransfer.effectAllowed = 'move';
            }}
            sx={{ cursor: 'grab', border: 1, borderColor: 'divider', borderRadius: 1, mb: 0.5 }}
            secondaryAction={
              <IconButton
                edge="end"
                aria-label={t(toAdmins ? 'admin.makeAdmin' : 'admin.removeAdmin', { name: p.email })}
                onClick={() => onMove(p.id, toAdmins)}
              >
                {toAdmins ? <ArrowForward fontSize="small" /> : <ArrowBack fontSize="small" />}
              </IconButton>
            }
          >
            <ListItemText primary={p.fullName || p.email} secondary={p.email} />
          </ListItem>
        ))}
      </List>
    </Paper>
  );
}
