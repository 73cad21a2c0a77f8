import { Alert, Box, Button, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import { useDeferredValue, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useOutbox } from '../../api/queries';
import { OutboxList } from './OutboxList';

/** /outbox: the mail the platform kept instead of sending (no SMTP server), for the super admin. */
export default function OutboxPage() {
  const { t } = useTranslation('outbox');
  const [filter, setFilter] = useState('');
  const to = useDeferredValue(filter.trim());
  const outbox = useOutbox(to);
  return (
    <Box sx={{ p: { xs: 2, sm: 4 }, maxWidth: 960, mx: 'auto' }}>
      <Typography variant="h5" component="h1" gutterBottom>
        {t('title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {t('intro')}
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 3 }}>
        <TextField
          label={t('filter')}
          type="email"
          size="small"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          sx={{ flex: 1 }}
        />
        <Button variant="outlined" onClick={() => void outbox.refetch()} disabled={outbox.isFetching}>
          {t('refresh')}
        </Button>
      </Stack>
      {outbox.isPending ? (
        <CircularProgress aria-label={t('title')} />
      ) : outbox.isError ? (
        <Alert severity="error">{outbox.error.message}</Alert>
      ) : (
        <OutboxList mails={outbox.data} />
      )}
    </Box>
  );
}
