import { Alert, Box, Button, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../api/client';

/** The message of an API refusal a form shows by its fields (a 4xx with a message), else null. */
export const refusalOf = (e: unknown): string | null =>
  e instanceof ApiError && e.status < 500 && e.message ? e.message : null;

/**
 * A settings form at most `maxWidth` px wide: the `explain` text, its fields, the API's refusal
 * (`error`) and Save, disabled while nothing `changed` or while `saving`.
 */
export function SettingsForm({
  maxWidth,
  explain,
  error,
  changed,
  saving,
  onSave,
  children,
}: {
  maxWidth: number;
  explain: string;
  error: string | null;
  changed: boolean;
  saving: boolean;
  onSave: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation('settings');
  return (
    <Stack spacing={2} sx={{ maxWidth }} component="form" onSubmit={(e) => e.preventDefault()}>
      <Typography color="text.secondary">{explain}</Typography>
      {children}
      {error && <Alert severity="error">{error}</Alert>}
      <Box>
        <Button variant="contained" type="submit" disabled={!changed || saving} onClick={onSave}>
          {t('common:save')}
        </Button>
      </Box>
    </Stack>
  );
}
