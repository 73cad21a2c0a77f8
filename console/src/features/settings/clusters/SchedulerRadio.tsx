import { FormControl, FormControlLabel, FormLabel, Radio, RadioGroup, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastFailure, toastSuccess } from '../../toasts/outcome';
import { ALGORITHM_SAVE_DELAY_MS, useSetAlgorithm, type Algorithm } from './queries';

export const ALGORITHMS: readonly Algorithm[] = ['round_robin', 'fill_all', 'fill_one'];

/**
 * The scheduler radio group (spec 3 §2.3): Round Robin, Fill all, Fill one. A new choice is
 * saved 1 second after the last change; the saved value moves only when the API accepts it,
 * and a refused one falls back to it.
 */
export function SchedulerRadio({ organization, saved }: { organization: string; saved: Algorithm }) {
  const { t } = useTranslation('settings');
  const save = useSetAlgorithm();
  const [accepted, setAccepted] = useState(saved);
  const [choice, setChoice] = useState(saved);
  const mutate = useRef(save.mutate);
  mutate.current = save.mutate;

  useEffect(() => {
    if (choice === accepted) return;
    const timer = setTimeout(
      () =>
        mutate.current(
          { organization, algorithm: choice },
          {
            onSuccess: (org) => {
              setAccepted(org.algorithm);
              toastSuccess(
                t('clusters.scheduler.saved', { algorithm: t(`clusters.scheduler.${org.algorithm}`) }),
              );
            },
            onError: (e) => {
              setChoice(accepted);
              toastFailure(e);
            },
          },
        ),
      ALGORITHM_SAVE_DELAY_MS,
    );
    return () => clearTimeout(timer);
  }, [choice, accepted, organization, t]);

  return (
    <FormControl>
      <FormLabel id="scheduler-label">{t('clusters.scheduler.title')}</FormLabel>
      <RadioGroup
        row
        aria-labelledby="scheduler-label"
        value={choice}
        onChange={(e) => setChoice(e.target.value as Algorithm)}
      >
        {ALGORITHMS.map((algorithm) => (
          <FormControlLabel
            key={algorithm}
            value={algorithm}
            control={<Radio />}
            label={t(`clusters.scheduler.${algorithm}`)}
          />
        ))}
      </RadioGroup>
      <Typography variant="body2" color="text.secondary">
        {t(`clusters.scheduler.explain.${choice}`)}
      </Typography>
    </FormControl>
  );
}
