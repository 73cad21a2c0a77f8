/**
 * Where a sign-in may lead: only same-origin relative paths ('/x', not '//host' or
 * 'https://…'), so a crafted ?backurl cannot bounce a fresh session elsewhere.
 */
export function safeRedirect(value: string | null | undefined): string | null {
  if (!value || !/^\/(?![/\\])[^\s\\]*$/.test(value)) return null;
  return value;
}

/** Remember me keeps the username (the e-mail) in local storage (spec 1 §9). */
export const REMEMBERED_USERNAME_KEY = 'username';
export function rememberedUsername(): string {
  try {
    return localStorage.getItem(REMEMBERED_USERNAME_KEY) ?? '';
  } catch {
    return '';
  }
}
export function rememberUsername(username: string | null) {
  try {
    if (username) localStorage.setItem(REMEMBERED_USERNAME_KEY, username);
    else localStorage.removeItem(REMEMBERED_USERNAME_KEY);
  } catch {
    // Storage may be unavailable (private mode): remembering is a convenience.
  }
}
