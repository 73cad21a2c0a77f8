import AddIcon from '@mui/icons-material/Add';
import PhotoCameraIcon from '@mui/icons-material/PhotoCamera';
import {
  Avatar,
  Box,
  Button,
  Chip,
  Divider,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Paper,
  Stack,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAvatar, useCreateOrganization, useSetMailNotification, useUploadAvatar } from '../../api/queries';
import type { Me } from '../../api/answers';
import { toastFailure, toastSuccess } from '../toasts/outcome';
import { initials } from './avatar';
import { AvatarDialog } from './AvatarDialog';
import { CreateOrganizationDialog } from './CreateOrganizationDialog';
import { MailNotificationToggle } from './MailNotificationToggle';

/** Profile tab: avatar, name and e-mail, the e-mail preference, organizations. */
export function ProfileSection({ me }: { me: Me }) {
  const { t } = useTranslation('profile');
  const avatar = useAvatar(me.id, me.has_avatar);
  const upload = useUploadAvatar(me.id);
  const mail = useSetMailNotification();
  const create = useCreateOrganization();
  const [avatarOpen, setAvatarOpen] = useState(false);
  const [createOpen, setCreateOpen] = useState(false);

  const failed = (error: unknown) => toastFailure(error);
  const succeeded = toastSuccess;

  return (
    <Stack spacing={3}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={3} sx={{ alignItems: 'center' }}>
          {/* Not a Badge: its content is aria-hidden, and this button must be reachable. */}
          <Box sx={{ position: 'relative', flexShrink: 0 }}>
            <Avatar
              src={avatar.data ?? undefined}
              alt={`${me.first_name} ${me.last_name}`}
              sx={{ width: 96, height: 96, fontSize: 36 }}
            >
              {initials(me.first_name, me.last_name, me.email)}
            </Avatar>
            <Tooltip title={t('changeAvatar')}>
              <IconButton
                size="small"
                aria-label={t('changeAvatar')}
                onClick={() => setAvatarOpen(true)}
                sx={{
                  position: 'absolute',
                  right: -4,
                  bottom: -4,
                  bgcolor: 'background.paper',
                  border: 1,
                  borderColor: 'divider',
                  '&:hover': { bgcolor: 'background.default' },
                }}
              >
                <PhotoCameraIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </Box>
          <Box sx={{ minWidth: 0, textAlign: { xs: 'center', sm: 'left' } }}>
            <Typography variant="h6" component="p" data-testid="full-name">
              {me.first_name} {me.last_name}
            </Typography>
            <Typography color="text.secondary" sx={{ wordBreak: 'break-all' }}>
              {me.email}
            </Typography>
          </Box>
        </Stack>
        <Divider sx={{ my: 2.5 }} />
        <MailNotificationToggle
          value={me.preferences.mail_notification}
          onSave={(value) =>
            mail.mutateAsync(value).then(
              () => succeeded(t('preferencesSaved')),
              (error: unknown) => {
                failed(error);
                throw error;
              },
            )
          }
        />
      </Paper>

      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={1.5}
          sx={{ justifyContent: 'space-between', alignItems: { xs: 'stretch', sm: 'center' }, mb: 1 }}
        >
          <Typography variant="h6" component="h2">
            {t('organizations')}
          </Typography>
          <Button variant="outlined" startIcon={<AddIcon />} onClick={() => setCreateOpen(true)}>
            {t('createOrganization')}
          </Button>
        </Stack>
        {me.organizations.length === 0 ? (
          <Typography color="text.secondary">{t('noOrganizations')}</Typography>
        ) : (
          <List dense disablePadding data-testid="organizations">
            {me.organizations.map((organization) => (
              <ListItem key={organization.id} divider disableGutters>
                <ListItemText primary={organization.name} secondary={t(`roles.${organization.role}`)} />
                {organization.id === me.current_organization && (
                  <Chip size="small" color="primary" variant="outlined" label={t('currentOrganization')} />
                )}
              </ListItem>
            ))}
          </List>
        )}
      </Paper>

      <AvatarDialog
        open={avatarOpen}
        currentUrl={avatar.data ?? null}
        saving={upload.isPending}
        onCancel={() => setAvatarOpen(false)}
        onSave={(file) =>
          upload.mutate(file, {
            onSuccess: () => {
              setAvatarOpen(false);
              succeeded(t('avatarSaved'));
            },
            onError: failed,
          })
        }
      />
      <CreateOrganizationDialog
        open={createOpen}
        saving={create.isPending}
        onCancel={() => setCreateOpen(false)}
        onCreate={(organization) =>
          create.mutate(organization, {
            onSuccess: () => {
              setCreateOpen(false);
              succeeded(t('organizationCreated', { name: organization.name }));
            },
            onError: failed,
          })
        }
      />
    </Stack>
  );
}
