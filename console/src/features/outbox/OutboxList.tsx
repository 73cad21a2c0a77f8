import { Alert, Box, Link, Paper, Stack, Typography } from '@mui/material';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import type { OutboxMail } from '../../api/answers';
import { formatDateTime } from '../../lib/datetime';

const URL_PATTERN = /(https?:\/\/[^\s]+)/g;

/** A mail's text with its links clickable (verification, reset and invitation links). */
export function MailText({ text }: { text: string }) {
  return (
    <Typography
      component="pre"
      variant="body2"
      sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', m: 0 }}
    >
      {text.split(URL_PATTERN).map((part, i) =>
        i % 2 === 1 ? (
          <Link key={i} href={part} target="_blank" rel="noreferrer">
            {part}
          </Link>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </Typography>
  );
}

/** The outbox's mails, newest first. */
export function OutboxList({ mails }: { mails: OutboxMail[] }) {
  const { t } = useTranslation('outbox');
  if (mails.length === 0) return <Alert severity="info">{t('empty')}</Alert>;
  return (
    <Stack spacing={2}>
      {mails.map((mail) => (
        <Paper key={mail.id} variant="outlined" sx={{ p: 2 }} component="article" aria-label={mail.subject}>
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mb: 1, color: 'text.secondary' }}>
            <Typography variant="body2">
              {t('date')}: {formatDateTime(mail.created_at)}
            </Typography>
            <Typography variant="body2">
              {t('to')}: {mail.to}
            </Typography>
          </Box>
          <Typography variant="subtitle1" component="h2" gutterBottom>
            {mail.subject}
          </Typography>
          <MailText text={mail.text} />
        </Paper>
      ))}
    </Stack>
  );
}
