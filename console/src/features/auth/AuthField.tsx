import { FormControl, FormHelperText, InputLabel, OutlinedInput } from '@mui/material';
import { useId, type ChangeEvent, type ReactNode } from 'react';

export interface AuthFieldProps {
  label: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  name?: string;
  type?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  placeholder?: string;
  error?: boolean;
  helperText?: ReactNode;
  readOnly?: boolean;
  disabled?: boolean;
  fullWidth?: boolean;
  /** Keeps the label above the field (so a placeholder shows before it is focused). */
  shrinkLabel?: boolean;
  endAdornment?: ReactNode;
}

/**
 * An outlined text field as MUI's TextField draws it (label, helper or error text, the same ids
 * and aria-describedby), built from its parts: TextField imports Select, which the sign-in pages
 * would download for nothing (18.6 KB gzipped, bench/README.md console).
 */
export function AuthField({
  label,
  helperText,
  error,
  disabled,
  fullWidth,
  shrinkLabel,
  ...input
}: AuthFieldProps) {
  const id = useId();
  const helperTextId = helperText ? `${id}-helper-text` : undefined;
  return (
    <FormControl variant="outlined" error={error} disabled={disabled} fullWidth={fullWidth}>
      <InputLabel htmlFor={id} id={`${id}-label`} shrink={shrinkLabel}>
        {label}
      </InputLabel>
      <OutlinedInput {...input} id={id} label={label} notched={shrinkLabel} aria-describedby={helperTextId} />
      {helperText && <FormHelperText id={helperTextId}>{helperText}</FormHelperText>}
    </FormControl>
  );
}
