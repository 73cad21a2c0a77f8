import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The subjects offered, as sent to the API (the people reading feedback read English). */
export const FEEDBACK_SUBJECTS = {
  bug: 'Bug report',
  feature: 'Feature request',
  question: 'Question',
  other: 'Other',
} as const;
type SubjectKey = keyof typeof FEEDBACK_SUBJECTS;

export interface FeedbackDialogProps {
  open: boolean;
  sending: boolean;
  onClose: () => void;
  onSend: (feedback: { subject: string; content: string }, done: () => void) => void;
}

/** A subject choice and free text (spec 1 §2.2). */
export function FeedbackDialog({ open, sending, onClose, onSend }: FeedbackDialogProps) {
  const { t } = useTranslation('shell');
  const [subject, setSubject] = useState<SubjectKey>('bug');
  const [content, setContent] = useState('');
  const blank = content.trim() === '';
  const send = () => {
    if (blank || sending) return;
    onSend({ subject: FEEDBACK_SUBJECTS[subject], content: content.trim() }, () => {
      setSubject('bug');
      setContent('');
    });
  };
  return (
    <Dialog
      open={open}
      onClose={sending ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="feedback-title"
    >
      <DialogTitle id="feedback-title">{t('feedback.title')}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{t('feedback.intro')}</DialogContentText>
        <Stack spacing={2}>
          <TextField
            select
            label={t('feedback.subject')}
            value={subject}
            onChange={(e) => setSubject(e.target.value as SubjectKey)}
            fullWidth
          >
            {(Object.keys(FEEDBACK_SUBJECTS) as SubjectKey[]).map((key) => (
              <MenuItem key={key} value={key}>
                {t(`feedback.subjects.${key}`)}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label={t('feedback.message')}
            placeholder={t('feedback.placeholder')}
            value={content}
            onChange={(e) => setContent(e.target.value)}
            multiline
            minRows={5}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 10_000 } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} disabled={sending} color="inherit">
          {t('common:cancel')}
        </Button>
        <Button variant="contained" onClick={send} disabled={blank} loading={sending}>
          {t('feedback.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
