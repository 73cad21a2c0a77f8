/** Toast lifetime (spec 1 §9). */
export const TOAST_MS = 6000;

/** The spec's colour names; 'danger' is MUI's 'error'. */
export type ToastType = 'primary' | 'success' | 'info' | 'warning' | 'danger';

export interface Toast {
  id: number;
  title: string;
  text: string;
  type: ToastType;
}

export type ToastInput = Omit<Toast, 'id' | 'type'> & { type?: string };

const KNOWN: readonly string[] = ['primary', 'success', 'info', 'warning', 'danger'];
/** Realtime messages carry a colour name; unknown ones fall back to primary (spec 1 §4). */
export const toastType = (type: string | undefined): ToastType =>
  KNOWN.includes(type ?? '') ? (type as ToastType) : type === 'error' ? 'danger' : 'primary';

/** A tiny external store so toasts can be raised from outside React (the API client, the socket). */
export function createToastStore(lifetimeMs = TOAST_MS) {
  let toasts: Toast[] = [];
  let nextId = 1;
  const listeners = new Set<() => void>();
  const emit = () => listeners.forEach((l) => l());
  const dismiss = (id: number) => {
    toasts = toasts.filter((t) => t.id !== id);
    emit();
  };
  return {
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get: () => toasts,
    show(input: ToastInput): number {
      const toast = { ...input, type: toastType(input.type), id: nextId++ };
      toasts = [...toasts, toast];
      emit();
      setTimeout(() => dismiss(toast.id), lifetimeMs);
      return toast.id;
    },
    dismiss,
  };
}

export const toasts = createToastStore();
