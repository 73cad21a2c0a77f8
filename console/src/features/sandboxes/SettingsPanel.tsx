import { Divider, Paper, Stack, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { toasts } from '../toasts/toast-store';
import { AuthorizationsTable } from './AuthorizationsTable';
import { AvatarField } from './AvatarField';
import type { SandboxForm } from './form';
import { HardwareFields } from './HardwareFields';
import { MountPointsField } from './MountPointsField';
import { filterName, isValidVersion, VERSION_MAX } from './rules';
import { TagsField } from './TagsField';
import { VariablesEditor } from './VariablesEditor';

export interface BaseImage {
  source: { image: string; version: string } | null;
  /** The built image: ref@digest once saved. */
  image: string | null;
  registry: string | null;
}

export interface SettingsPanelProps {
  form: SandboxForm;
  readOnly: boolean;
  knownTags: { label: string; color: string }[];
  groups: { id: string; name: string }[];
  organizationMounts: string[];
  avatarUrl: string | null;
  baseImage: BaseImage;
  onChange: (patch: Partial<SandboxForm>) => void;
  onAvatar: (file: File) => void;
}

/** Spec 1 §2.8's settings: name, version, tags, avatar, description, hardware, mounts, authorizations, base image, variables. */
export function SettingsPanel(props: SettingsPanelProps) {
  const { t } = useTranslation('sandboxes');
  const { form, readOnly, onChange } = props;
  const badVersion = form.version !== '' && !isValidVersion(form.version);
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label={t('settingsPanel')}>
      <Typography variant="h6" component="h2" gutterBottom>
        {t('settingsPanel')}
      </Typography>
      <Stack spacing={2.5} divider={<Divider flexItem />}>
        <Stack spacing={2}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              fullWidth
              label={t('name')}
              value={form.name}
              disabled={readOnly}
              onChange={(e) => {
                const { name, rejected } = filterName(e.target.value);
                if (rejected)
                  toasts.show({
                    title: t('settingsError'),
                    text: t('invalidCharacter', { chars: rejected }),
                    type: 'warning',
                  });
                onChange({ name });
              }}
            />
            <TextField
              fullWidth
              label={t('version')}
              value={form.version}
              disabled={readOnly}
              error={badVersion}
              helperText={badVersion ? t('invalidVersion') : ' '}
              onChange={(e) => onChange({ version: e.target.value.slice(0, VERSION_MAX) })}
            />
          </Stack>
          <AvatarField
            savedUrl={props.avatarUrl}
            name={form.name}
            readOnly={readOnly}
            onChoose={props.onAvatar}
          />
          <TextField
            label={t('description')}
            value={form.description}
            disabled={readOnly}
            multiline
            minRows={2}
            onChange={(e) => onChange({ description: e.target.value })}
          />
          <TagsField
            value={form.tags}
            known={props.knownTags}
            readOnly={readOnly}
            onChange={(tags) => onChange({ tags })}
          />
        </Stack>
        <HardwareFields
          resources={form.resources}
          gpu={form.gpu_required}
          readOnly={readOnly}
          onResources={(resources) => onChange({ resources })}
          onGpu={(gpu_required) => onChange({ gpu_required })}
        />
        <MountPointsField
          available={props.organizationMounts}
          value={form.mounts}
          readOnly={readOnly}
          onChange={(mounts) => onChange({ mounts })}
        />
        {!readOnly && (
          <AuthorizationsTable
            groups={props.groups}
            permissions={form.permissions}
            locked={form.locked}
            onChange={(permissions) => onChange({ permissions })}
          />
        )}
        <BaseImageInfo {...props.baseImage} />
        <VariablesEditor
          value={form.variables}
          readOnly={readOnly}
          onChange={(variables) => onChange({ variables })}
        />
      </Stack>
    </Paper>
  );
}

function BaseImageInfo({ source, image, registry }: BaseImage) {
  const { t } = useTranslation('sandboxes');
  return (
    <div>
      <Typography variant="subtitle2" gutterBottom>
        {t('baseImage')}
      </Typography>
      <Typography variant="body2" sx={{ wordBreak: 'break-all' }} data-testid="base-image">
        {t('sourceImage')}: {source ? `${source.image}:${source.version}` : '—'}
        <br />
        {t('imageId')}: {image ?? t('notBuiltYet')}
        {registry && (
          <>
            <br />
            {t('registry')}: {registry}
          </>
        )}
      </Typography>
    </div>
  );
}
