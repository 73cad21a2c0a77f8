import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  Alert,
  Box,
  Button,
  IconButton,
  InputAdornment,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { toastSessionFailure } from './outcomes';
import { sessionKeys } from './queries';

/**
 * The session's webhook (issue 15): a secret URL that starts a run on POST, for CI and GitOps
 * hooks. The API keeps only the secret's hash, so the URL is shown once, right after Rotate.
 */
export function WebhookField({ session, enabled }: { session: string; enabled: boolean }) {
  const { t } = useTranslation('sessions');
  const client = useQueryClient();
  const [url, setUrl] = useState<string | null>(null);
  const [on, setOn] = useState(enabled);
  const params = { params: { path: { uuid: session } } };
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/session/{uuid}/webhook', params)),
    onSuccess: (answer) => {
      setUrl(new URL(answer.path, location.origin).toString());
      setOn(true);
      return client.invalidateQueries({ queryKey: sessionKeys.all });
    },
    onError: toastSessionFailure,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/session/{uuid}/webhook', params)),
    onSuccess: () => {
      setUrl(null);
      setOn(false);
    },
    onError: toastSessionFailure,
  });
  return (
    <Box sx={{ pt: 1 }}>
      <Typography variant="subtitle2" gutterBottom>
        {t('webhook.title')}
      </Typography>
      {url ? (
        <>
          <TextField
            size="small"
            fullWidth
            value={url}
            label={t('webhook.url')}
            slotProps={{
              htmlInput: { readOnly: true },
              input: {
                endAdornment: (
                  <InputAdornment position="end">
                    <Tooltip title={t('webhook.copy')}>
                      <IconButton
                        aria-label={t('webhook.copy')}
                        onClick={() => void navigator.clipboard?.writeText(url)}
                      >
                        <ContentCopyIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </InputAdornment>
                ),
              },
            }}
          />
          <Alert severity="info" sx={{ mt: 1 }}>
            {t('webhook.once')}
          </Alert>
        </>
      ) : (
        <Typography variant="body2" color="text.secondary">
          {t(on ? 'webhook.set' : 'webhook.none')}
        </Typography>
      )}
      <Box sx={{ display: 'flex', gap: 1, mt: 1 }}>
        <Button size="small" variant="outlined" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
          {t(on ? 'webhook.rotate' : 'webhook.create')}
        </Button>
        {on && (
          <Button size="small" color="error" onClick={() => remove.mutate()} disabled={remove.isPending}>
            {t('webhook.remove')}
          </Button>
        )}
      </Box>
    </Box>
  );
}
