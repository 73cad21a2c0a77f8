import { FormControlLabel, Switch, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The e-mail preference is saved this long after the last change (spec 1 §9). */
export const MAIL_NOTIFICATION_DEBOUNCE_MS = 400;

export interface MailNotificationToggleProps {
  /** The saved value. */
  value: boolean;
  /** Saves the final value; a rejected promise puts the toggle back to the saved value. */
  onSave: (value: boolean) => Promise<unknown> | void;
}

/**
 * The e-mail notifications switch: it follows clicks at once and saves 400 ms after the last
 * one, only when the final value differs from the saved one. Leaving the page saves at once.
 */
export function MailNotificationToggle({ value, onSave }: MailNotificationToggleProps) {
  const { t } = useTranslation('profile');
  const [checked, setChecked] = useState(value);
  // Follow the saved value when it changes (after a save, or another tab's).
  const [saved, setSaved] = useState(value);
  if (saved !== value) {
    setSaved(value);
    setChecked(value);
  }

  const latest = useRef({ value, onSave });
  useEffect(() => {
    latest.current = { value, onSave };
  });
  const pending = useRef<{ timer: ReturnType<typeof setTimeout>; next: boolean } | null>(null);

  const flush = (next: boolean) => {
    pending.current = null;
    if (next === latest.current.value) return;
    void Promise.resolve(latest.current.onSave(next)).catch(() => setChecked(latest.current.value));
  };
  useEffect(
    () => () => {
      // Leaving within the 400 ms still saves.
      if (pending.current) {
        clearTimeout(pending.current.timer);
        flush(pending.current.next);
      }
    },
    [], // on unmount only
  );

  const change = (next: boolean) => {
    setChecked(next);
    if (pending.current) clearTimeout(pending.current.timer);
    pending.current = { timer: setTimeout(() => flush(next), MAIL_NOTIFICATION_DEBOUNCE_MS), next };
  };

  return (
    <FormControlLabel
      control={<Switch checked={checked} onChange={(e) => change(e.target.checked)} />}
      label={
        <>
          <Typography component="span" sx={{ display: 'block' }}>
            {t('mailNotifications')}
          </Typography>
          <Typography component="span" variant="body2" color="text.secondary">
            {t('mailNotificationsHelp')}
          </Typography>
        </>
      }
      sx={{ alignItems: 'flex-start', '& .MuiSwitch-root': { mt: -0.5 } }}
    />
  );
}
