import AddIcon from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import {
  Box,
  Button,
  FormControlLabel,
  IconButton,
  Stack,
  Switch,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { refusalOf, SettingsForm } from '../common/SettingsForm';
import { useSaveMountPoints, type CurrentOrganization } from './queries';

type Saved = Pick<CurrentOrganization, 'base_path' | 'mount_points' | 'safe_mount'>;

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Organization Settings › Mount Points (spec 3 §2.3, §5): a base path, rows with add and remove,
 * and the safe mount switch (mounting only from /mnt/…). The API collapses double slashes,
 * drops empty rows and refuses a row outside the base path (its 422 message is shown here);
 * the form then shows what was stored. Save is disabled while nothing changed.
 */
export function MountPointsForm({ organization, saved }: { organization: string; saved: Saved }) {
  const { t } = useTranslation('settings');
  const save = useSaveMountPoints();
  const [base, setBase] = useState(saved.base_path);
  const [rows, setRows] = useState<string[]>(saved.mount_points.length ? saved.mount_points : ['']);
  const [safe, setSafe] = useState(saved.safe_mount);
  const [error, setError] = useState<string | null>(null);
  const [current, setCurrent] = useState(saved);

  const changed =
    base !== current.base_path ||
    safe !== current.safe_mount ||
    !same(
      rows.filter((r) => r.trim()),
      current.mount_points,
    );

  const submit = () => {
    setError(null);
    save.mutate(
      { organization, base_path: base.trim(), mount_points: rows, safe_mount: safe },
      {
        onSuccess: (org) => {
          setCurrent(org);
          setBase(org.base_path);
          setRows(org.mount_points.length ? org.mount_points : ['']);
          setSafe(org.safe_mount);
          toastSuccess(t('mountPoints.saved'));
        },
        onError: (e) => {
          setError(refusalOf(e));
          toastFailure(e);
        },
      },
    );
  };

  return (
    <SettingsForm
      maxWidth={640}
      explain={t('mountPoints.explain')}
      error={error}
      changed={changed}
      saving={save.isPending}
      onSave={submit}
    >
      <TextField
        size="small"
        label={t('mountPoints.basePath')}
        value={base}
        placeholder="/mnt"
        onChange={(e) => setBase(e.target.value)}
      />
      <Stack spacing={1} role="list" aria-label={t('mountPoints.rows')}>
        {rows.map((row, index) => (
          <Stack key={index} direction="row" spacing={1} role="listitem" sx={{ alignItems: 'center' }}>
            <TextField
              size="small"
              fullWidth
              label={t('mountPoints.row', { n: index + 1 })}
              value={row}
              onChange={(e) => setRows((all) => all.map((r, i) => (i === index ? e.target.value : r)))}
            />
            <Tooltip title={t('mountPoints.remove')}>
              <span>
                <IconButton
                  aria-label={t('mountPoints.removeNamed', { n: index + 1 })}
                  disabled={rows.length === 1 && !row}
                  onClick={() =>
                    setRows((all) => (all.length === 1 ? [''] : all.filter((_r, i) => i !== index)))
                  }
                >
                  <DeleteOutline fontSize="small" />
                </IconButton>
              </span>
            </Tooltip>
          </Stack>
        ))}
        <Box>
          <Button startIcon={<AddIcon />} onClick={() => setRows((all) => [...all, ''])}>
            {t('mountPoints.add')}
          </Button>
        </Box>
      </Stack>
      <Box>
        <FormControlLabel
          control={<Switch checked={safe} onChange={(e) => setSafe(e.target.checked)} />}
          label={t('mountPoints.safeMount')}
        />
        <Typography variant="body2" color="text.secondary">
          {t('mountPoints.safeMountHint')}
        </Typography>
      </Box>
    </SettingsForm>
  );
}
