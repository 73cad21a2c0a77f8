import Close from '@mui/icons-material/Close';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Divider,
  Drawer,
  FormControlLabel,
  IconButton,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ConfirmDialog } from '../common/ConfirmDialog';
import type { OrganizationItem } from '../types';
import {
  useDeleteCluster,
  useRenameCluster,
  useSetClusterDisabled,
  useSetClusterVisibility,
  type ClusterItem,
} from './queries';

/** What the caller may do to a cluster manager (spec 3 §6). */
export type ClusterRole = 'super' | 'organizationAdmin';

function Rename({ cluster }: { cluster: ClusterItem }) {
  const { t } = useTranslation('settings');
  const rename = useRenameCluster();
  const [name, setName] = useState(cluster.title || cluster.name);
  const trimmed = name.trim();
  const save = () =>
    rename.mutate(
      { id: cluster.id, name: trimmed },
      {
        onSuccess: () => toastSuccess(t('clusters.renamed', { name: trimmed })),
        onError: (e) => toastFailure(e),
      },
    );
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
      <TextField
        size="small"
        fullWidth
        label={t('clusters.flyout.name')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && trimmed) save();
        }}
      />
      <Button
        variant="outlined"
        disabled={!trimmed || trimmed === cluster.name || rename.isPending}
        onClick={save}
      >
        {t('clusters.flyout.rename')}
      </Button>
    </Stack>
  );
}

function Visibility({
  cluster,
  organizations,
}: {
  cluster: ClusterItem;
  organizations: readonly OrganizationItem[];
}) {
  const { t } = useTranslation('settings');
  const update = useSetClusterVisibility();
  const [isPublic, setPublic] = useState(cluster.public);
  const [chosen, setChosen] = useState<string[]>(cluster.organizations);
  const changed =
    isPublic !== cluster.public ||
    (!isPublic && [...chosen].sort().join() !== [...cluster.organizations].sort().join());
  const names = new Map(organizations.map((o) => [o.id, o.name]));
  return (
    <Stack spacing={1.5}>
      <Box>
        <FormControlLabel
          control={<Switch checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />}
          label={t('clusters.flyout.public')}
        />
      </Box>
      <Autocomplete
        multiple
        size="small"
        disabled={isPublic}
        options={organizations.map((o) => o.id)}
        getOptionLabel={(id) => names.get(id) ?? id}
        value={chosen}
        onChange={(_e, value) => setChosen(value)}
        renderInput={(params) => <TextField {...params} label={t('clusters.flyout.organizations')} />}
      />
      <Box>
        <Button
          variant="outlined"
          disabled={!changed || update.isPending}
          onClick={() =>
            update.mutate(
              { id: cluster.id, is_public: isPublic, ...(isPublic ? {} : { organizations: chosen }) },
              {
                onSuccess: () => toastSuccess(t('clusters.updated', { name: cluster.name })),
                onError: (e) => toastFailure(e),
              },
            )
          }
        >
          {t('common:save')}
        </Button>
      </Box>
    </Stack>
  );
}

function DisableForOrganization({ cluster, organization }: { cluster: ClusterItem; organization: string }) {
  const { t } = useTranslation('settings');
  const set = useSetClusterDisabled();
  const [disabled, setDisabled] = useState(cluster.disabled);
  return (
    <Stack spacing={1}>
      <Box>
        <FormControlLabel
          control={<Switch checked={disabled} onChange={(e) => setDisabled(e.target.checked)} />}
          label={t('clusters.flyout.disable')}
        />
        <Typography variant="body2" color="text.secondary">
          {t('clusters.flyout.disableHint')}
        </Typography>
      </Box>
      <Box>
        <Button
          variant="outlined"
          disabled={disabled === cluster.disabled || set.isPending}
          onClick={() =>
            set.mutate(
              { organization, id: cluster.id, disabled },
              {
                onSuccess: () =>
                  toastSuccess(
                    t(disabled ? 'clusters.disabledFor' : 'clusters.enabledFor', { name: cluster.name }),
                  ),
                onError: (e) => toastFailure(e),
              },
            )
          }
        >
          {t('common:save')}
        </Button>
      </Box>
    </Stack>
  );
}

/**
 * The side flyout of one cluster manager, the way to act on it (spec 3 §2.3). The super admin
 * renames it, makes it public or assigns it to organizations, and deletes it; an organization
 * admin disables it for their organization and unlinks one private to it. The platform-owned
 * one is never deleted.
 */
export function ClusterFlyout({
  cluster,
  role,
  organization,
  organizations,
  onClose,
}: {
  cluster: ClusterItem;
  role: ClusterRole;
  organization: string | null;
  organizations: readonly OrganizationItem[];
  onClose: () => void;
}) {
  const { t } = useTranslation('settings');
  const remove = useDeleteCluster();
  const [confirming, setConfirming] = useState(false);
  const superAdmin = role === 'super';
  // An organization admin unlinks a private cluster manager from their organization (spec 3 §6).
  const removable = !cluster.isIlluminia && (superAdmin || !cluster.public);
  const removeLabel = superAdmin ? t('clusters.flyout.delete') : t('clusters.flyout.unlink');
  return (
    <Drawer
      anchor="right"
      open
      onClose={onClose}
      slotProps={{ paper: { sx: { width: { xs: '100%', sm: 420 } } } }}
    >
      <Stack
        spacing={2}
        sx={{ p: 2 }}
        role="region"
        aria-label={t('clusters.flyout.title', { name: cluster.name })}
      >
        <Stack direction="row" sx={{ alignItems: 'center' }}>
          <Typography variant="h6" sx={{ flexGrow: 1, wordBreak: 'break-all' }}>
            {cluster.name}
          </Typography>
          <IconButton aria-label={t('clusters.flyout.close')} onClick={onClose}>
            <Close />
          </IconButton>
        </Stack>
        <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
          {t('clusters.columns.address')}: {cluster.address || cluster.id}
          {cluster.version ? ` · ${t('clusters.flyout.version')}: ${cluster.version}` : ''}
        </Typography>
        {superAdmin && (
          <>
            <Divider />
            <Rename key={`name-${cluster.name}`} cluster={cluster} />
            <Divider />
            <Visibility
              key={`visibility-${cluster.public}-${cluster.organizations.join()}`}
              cluster={cluster}
              organizations={organizations}
            />
          </>
        )}
        {!superAdmin && organization && (
          <>
            <Divider />
            <DisableForOrganization
              key={`disabled-${cluster.disabled}`}
              cluster={cluster}
              organization={organization}
            />
          </>
        )}
        <Divider />
        {cluster.isIlluminia ? (
          <Alert severity="info">{t('clusters.flyout.platformKept')}</Alert>
        ) : (
          removable && (
            <Box>
              <Button color="error" variant="outlined" onClick={() => setConfirming(true)}>
                {removeLabel}
              </Button>
            </Box>
          )
        )}
      </Stack>
      <ConfirmDialog
        open={confirming}
        title={superAdmin ? t('clusters.deleteTitle') : t('clusters.unlinkTitle')}
        text={t(superAdmin ? 'clusters.deleteText' : 'clusters.unlinkText', { name: cluster.name })}
        busy={remove.isPending}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          remove.mutate(cluster.id, {
            onSuccess: () => {
              toastSuccess(t(superAdmin ? 'clusters.deleted' : 'clusters.unlinked', { name: cluster.name }));
              setConfirming(false);
              onClose();
            },
            onError: (e) => toastFailure(e),
          })
        }
      />
    </Drawer>
  );
}
