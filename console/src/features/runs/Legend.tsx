import { Box, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { LEGEND } from './status';

/** The colour legend of the run graph (spec 2 §2). */
export function Legend() {
  const { t } = useTranslation('runs');
  return (
    <Box
      component="ul"
      aria-label={t('legendTitle')}
      sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, m: 0, p: 0, listStyle: 'none' }}
    >
      {LEGEND.map((entry) => (
        <Box component="li" key={entry.key} sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
          <Box sx={{ width: 10, height: 10, borderRadius: '50%', bgcolor: entry.colour }} />
          <Typography variant="caption">{t(`legend.${entry.key}`)}</Typography>
        </Box>
      ))}
    </Box>
  );
}
