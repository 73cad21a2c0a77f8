import { Alert, AlertTitle, Stack } from '@mui/material';
import { useSyncExternalStore } from 'react';
import { toasts, type ToastType } from './toast-store';

const severity: Record<ToastType, 'success' | 'info' | 'warning' | 'error'> = {
  primary: 'info',
  info: 'info',
  success: 'success',
  warning: 'warning',
  danger: 'error',
};

/** The toast stack, top right; each toast leaves after 6 s or when closed. */
export function Toasts() {
  const list = useSyncExternalStore(toasts.subscribe, toasts.get);
  return (
    <Stack
      spacing={1}
      sx={{ position: 'fixed', top: 72, right: 16, zIndex: 2000, width: 'min(360px, calc(100vw - 32px))' }}
      aria-live="polite"
    >
      {list.map((toast) => (
        <Alert
          key={toast.id}
          severity={severity[toast.type]}
          variant="filled"
          onClose={() => toasts.dismiss(toast.id)}
          data-testid="toast"
        >
          <AlertTitle>{toast.title}</AlertTitle>
          {toast.text}
        </Alert>
      ))}
    </Stack>
  );
}
