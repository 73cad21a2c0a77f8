import { Alert, Box } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** A settings screen reached by a role the matrix (spec 3 §6) does not give it to. */
export function Forbidden() {
  const { t } = useTranslation('settings');
  return (
    <Box sx={{ p: 3 }}>
      <Alert severity="warning" data-testid="settings-forbidden">
        {t('forbidden')}
      </Alert>
    </Box>
  );
}
