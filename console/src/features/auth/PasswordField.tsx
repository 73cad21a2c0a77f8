import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import { IconButton, InputAdornment } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthField, type AuthFieldProps } from './AuthField';

/** A password input with a show/hide toggle. */
export function PasswordField(props: Omit<AuthFieldProps, 'type' | 'endAdornment'>) {
  const { t } = useTranslation('auth');
  const [shown, setShown] = useState(false);
  return (
    <AuthField
      {...props}
      type={shown ? 'text' : 'password'}
      endAdornment={
        <InputAdornment position="end">
          <IconButton
            aria-label={shown ? t('hidePassword') : t('showPassword')}
            onClick={() => setShown((s) => !s)}
            onMouseDown={(e) => e.preventDefault()}
            edge="end"
          >
            {shown ? <VisibilityOff /> : <Visibility />}
          </IconButton>
        </InputAdornment>
      }
    />
  );
}
