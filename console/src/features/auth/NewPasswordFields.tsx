import { useTranslation } from 'react-i18next';
import { isStrongPassword } from '../../lib/validation';
import { PasswordField } from './PasswordField';

export interface NewPasswordFieldsProps {
  password: string;
  confirm: string;
  onPasswordChange: (password: string) => void;
  onConfirmChange: (confirm: string) => void;
  /** Marks a confirmation that differs as it is typed (otherwise it is checked on submit). */
  flagMismatch?: boolean;
  autoFocus?: boolean;
  disabled?: boolean;
}

/** A new password and its confirmation, with the strength hint under the first. */
export function NewPasswordFields({
  password,
  confirm,
  onPasswordChange,
  onConfirmChange,
  flagMismatch = false,
  autoFocus,
  disabled,
}: NewPasswordFieldsProps) {
  const { t } = useTranslation('auth');
  const weak = password !== '' && !isStrongPassword(password);
  const mismatch = flagMismatch && confirm !== '' && confirm !== password;
  return (
    <>
      <PasswordField
        label={t('password')}
        name="password"
        autoComplete="new-password"
        autoFocus={autoFocus}
        value={password}
        onChange={(e) => onPasswordChange(e.target.value)}
        helperText={weak ? t('weakPassword') : undefined}
        disabled={disabled}
        fullWidth
      />
      <PasswordField
        label={t('confirmPassword')}
        name="confirm"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => onConfirmChange(e.target.value)}
        error={mismatch}
        helperText={mismatch ? t('passwordsNotMatching') : undefined}
        disabled={disabled}
        fullWidth
      />
    </>
  );
}
