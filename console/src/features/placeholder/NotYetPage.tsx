import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** A route whose screen belongs to a later issue: it says so plainly (nothing that looks finished). */
export function NotYetPage({ screen }: { screen: string }) {
  const { t } = useTranslation();
  return (
    <Box sx={{ p: 4, maxWidth: 640 }} data-testid="not-yet">
      <Typography variant="h5" component="h1" gutterBottom>
        {t(`screens.${screen}`)}
      </Typography>
      <Typography color="text.secondary">{t('notYetText')}</Typography>
    </Box>
  );
}
