import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** A section whose screen comes with another issue (cluster managers): it says so plainly. */
export default function NothingYet() {
  const { t } = useTranslation('settings');
  return (
    <Alert severity="info" data-testid="section-not-yet">
      {t('sectionNotYet')}
    </Alert>
  );
}
