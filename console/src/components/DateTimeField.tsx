import type { SxProps, Theme } from '@mui/material';
import { DateTimePicker } from '@mui/x-date-pickers/DateTimePicker';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DateLocalization } from './DateLocalization';

/** Spec 2 §9: dates show as DD-MM-YYYY HH:mm (24 hours) in every language. */
export const DATE_TIME_FORMAT = 'DD-MM-YYYY HH:mm';
/** What the forms keep: datetime-local text, local time, to the minute. */
const VALUE_FORMAT = 'YYYY-MM-DDTHH:mm';

const toDate = (value: string): Dayjs | null => {
  if (!value) return null;
  const date = dayjs(value);
  return date.isValid() ? date : null;
};

export interface DateTimeFieldProps {
  label: string;
  /** YYYY-MM-DDTHH:mm (local time), '' for none: what a datetime-local input gave. */
  value: string;
  /** The date as YYYY-MM-DDTHH:mm; '' when cleared, incomplete or invalid (as datetime-local). */
  onChange: (value: string) => void;
  /** The minutes between two choices of the picker's clock. */
  minutesStep: number;
  error?: boolean;
  helperText?: string;
  sx?: SxProps<Theme>;
}

/**
 * A date-time field in the spec's format whatever the browser's locale (a native datetime-local
 * input shows the browser's), MUI X's own texts in the console's language. Its localization
 * provider is here rather than with the app's: the pickers load with the screens that use them,
 * not in the entry chunk (about 10 KB gzipped). The form keeps its datetime-local strings: the
 * conversion happens here.
 */
export function DateTimeField({
  label,
  value,
  onChange,
  minutesStep,
  error,
  helperText,
  sx,
}: DateTimeFieldProps) {
  const { i18n } = useTranslation();
  // What the field shows, with the string it stands for: a half-typed date stands for '' and
  // stays on screen while the form holds '' (a null value would empty the field's sections).
  const [shown, setShown] = useState(() => ({ value, date: toDate(value) }));
  let date = shown.date;
  if (shown.value !== value) {
    date = toDate(value);
    setShown({ value, date });
  }
  return (
    <DateLocalization language={i18n.language}>
      <DateTimePicker
        label={label}
        value={date}
        onChange={(next) => {
          const text = next && next.isValid() ? next.format(VALUE_FORMAT) : '';
          setShown({ value: text, date: next });
          if (text !== value) onChange(text);
        }}
        format={DATE_TIME_FORMAT}
        ampm={false}
        timeSteps={{ hours: 1, minutes: minutesStep }}
        slotProps={{
          field: { clearable: true },
          textField: { size: 'small', error, helperText, sx },
        }}
      />
    </DateLocalization>
  );
}
