import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import {
  Box,
  Button,
  CircularProgress,
  IconButton,
  InputAdornment,
  LinearProgress,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { useChangePassword } from '../../api/queries';
import { changePasswordProblem, isStrongPassword, passwordRules } from '../../lib/validation';
import { toasts } from '../toasts/toast-store';
import { toastFailure, toastSuccess } from '../toasts/outcome';

/** Security tab: change password (spec 1 §5). */
export function SecuritySection() {
  const { t } = useTranslation('profile');
  const change = useChangePassword();
  return (
    <ChangePasswordForm
      saving={change.isPending}
      onSubmit={(body) =>
        change.mutateAsync(body).then(
          () => void toastSuccess(t('passwordChanged')),
          (error: unknown) => {
            // A wrong current password is said in the person's language; anything else in the server's words.
            if (error instanceof ApiError && error.code === 'invalid_credential')
              toasts.show({ title: t('invalidPassword'), text: t('currentPasswordWrong'), type: 'danger' });
            else toastFailure(error);
            throw error;
          },
        )
      }
    />
  );
}

const RULES = ['length', 'upper', 'lower', 'digit', 'special'] as const;

export interface ChangePasswordFormProps {
  saving: boolean;
  /** Resolves when the password changed (the fields are then cleared). */
  onSubmit: (body: { old_password: string; new_password: string }) => Promise<void>;
}

export function ChangePasswordForm({ saving, onSubmit }: ChangePasswordFormProps) {
  const { t } = useTranslation('profile');
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [shown, setShown] = useState(false);
  const complete = Boolean(current && next && repeat);

  const rules = passwordRules(next);
  const met = RULES.filter((rule) => rules[rule]).length;
  const strong = isStrongPassword(next);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (saving) return;
    const problem = changePasswordProblem({ current, next, repeat });
    if (problem) {
      toasts.show({ title: t(problem.title), text: t(problem.text), type: 'danger' });
      return;
    }
    onSubmit({ old_password: current, new_password: next }).then(
      () => {
        setCurrent('');
        setNext('');
        setRepeat('');
      },
      () => undefined, // the toast is shown by the caller; the fields stay for another try
    );
  };

  const visibility = (
    <InputAdornment position="end">
      <IconButton
        aria-label={shown ? t('hidePasswords') : t('showPasswords')}
        onClick={() => setShown((s) => !s)}
        edge="end"
        size="small"
      >
        {shown ? <VisibilityOff fontSize="small" /> : <Visibility fontSize="small" />}
      </IconButton>
    </InputAdornment>
  );
  const field = (
    label: string,
    value: string,
    set: (v: string) => void,
    autoComplete: string,
    withToggle = false,
  ) => (
    <TextField
      label={label}
      type={shown ? 'text' : 'password'}
      value={value}
      onChange={(e) => set(e.target.value)}
      autoComplete={autoComplete}
      required
      fullWidth
      slotProps={{ input: withToggle ? { endAdornment: visibility } : undefined }}
    />
  );

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
      <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
        {t('changePassword')}
      </Typography>
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2.5} sx={{ maxWidth: 440 }}>
          {field(t('currentPassword'), current, setCurrent, 'current-password', true)}
          {field(t('newPassword'), next, setNext, 'new-password')}
          <Box>
            <Stack direction="row" sx={{ justifyContent: 'space-between', mb: 0.5 }}>
              <Typography variant="body2" color="text.secondary">
                {t('strength')}
              </Typography>
              <Typography
                variant="body2"
                color={next ? (strong ? 'success.main' : 'warning.main') : 'text.secondary'}
                data-testid="strength"
              >
                {next ? (strong ? t('strong') : t('weak')) : ''}
              </Typography>
            </Stack>
            <LinearProgress
              variant="determinate"
              value={(met / RULES.length) * 100}
              color={strong ? 'success' : 'warning'}
              aria-label={t('strength')}
              sx={{ height: 6, borderRadius: 3 }}
            />
            <List dense disablePadding sx={{ mt: 1 }} aria-label={t('strengthRules')}>
              {RULES.map((rule) => (
                <ListItem key={rule} disableGutters sx={{ py: 0 }} data-met={rules[rule]}>
                  <ListItemIcon sx={{ minWidth: 28 }}>
                    {rules[rule] ? (
                      <CheckCircleIcon fontSize="small" color="success" />
                    ) : (
                      <RadioButtonUncheckedIcon fontSize="small" color="disabled" />
                    )}
                  </ListItemIcon>
                  <ListItemText primary={t(`rules.${rule}`)} />
                </ListItem>
              ))}
            </List>
            <Typography variant="caption" color="text.secondary">
              {t('strengthHint')}
            </Typography>
          </Box>
          {field(t('repeatPassword'), repeat, setRepeat, 'new-password')}
          <Box>
            <Button
              type="submit"
              variant="contained"
              disabled={!complete || saving}
              startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {t('save', { ns: 'common' })}
            </Button>
          </Box>
        </Stack>
      </Box>
    </Paper>
  );
}
