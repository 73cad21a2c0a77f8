// The console's validation rules (spec 1 §5). Messages are i18n keys of the namespace
// that shows them, so every language gets its own text.

/** Strong only if at least 4 of the 5 rules hold (spec 1 §5). */
export function passwordRules(password: string) {
  return {
    length: password.length >= 8,
    upper: /[A-Z]/.test(password),
    lower: /[a-z]/.test(password),
    digit: /[0-9]/.test(password),
    special: /[^A-Za-z0-9]/.test(password),
  };
}
export function isStrongPassword(password: string): boolean {
  return Object.values(passwordRules(password)).filter(Boolean).length >= 4;
}

// A standard address check: one @, no spaces, a dot in the domain, no empty labels.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
export const isEmail = (value: string) => EMAIL.test(value.trim());

export interface RegistrationForm {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
  confirm: string;
  /** The active tab's value: the invitation code or the new organization's name. */
  tabValue: string;
}
/** The toast a registration attempt gets, or null when it may be sent. */
export function registrationProblem(form: RegistrationForm): { title: string; text: string } | null {
  const required = [form.first_name, form.last_name, form.email, form.password, form.tabValue];
  if (required.some((v) => v.trim() === '')) return { title: 'registrationError', text: 'allFieldsRequired' };
  if (form.password !== form.confirm) return { title: 'registrationError', text: 'passwordsDontMatch' };
  return null;
}

/** Profile → Security: the toast a change-password attempt gets, or null. */
export function changePasswordProblem(form: {
  current: string;
  next: string;
  repeat: string;
}): { title: string; text: string } | null {
  if (!form.current || !form.next || !form.repeat)
    return { title: 'invalidPassword', text: 'allFieldsRequired' };
  if (form.next !== form.repeat) return { title: 'invalidPassword', text: 'passwordMismatch' };
  if (!isStrongPassword(form.next)) return { title: 'invalidPassword', text: 'passwordTooWeak' };
  return null;
}

export const DEFAULT_TAG_COLOR = '#dddddd';
/** A tag's problem ('Enter a valid color', …) as an i18n key, or null. */
export function tagProblem(
  tag: { label: string; color: string },
  others: { label: string; color: string }[],
): string | null {
  if (!/^#[0-9a-fA-F]{6}$/.test(tag.color)) return 'enterValidColor';
  if (tag.label.trim() === '') return 'enterValidTagLabel';
  const clash = others.some(
    (o) => o.color.toLowerCase() === tag.color.toLowerCase() || o.label === tag.label.trim(),
  );
  return clash ? 'tagAlreadyUsed' : null;
}
