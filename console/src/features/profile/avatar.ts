/** Avatars are .jpg, .jpeg or .png (spec 1 §5, §9); the server also sniffs the content. */
export const AVATAR_EXTENSIONS = ['.jpg', '.jpeg', '.png'] as const;

export const isAllowedAvatar = (fileName: string) =>
  AVATAR_EXTENSIONS.some((extension) => fileName.toLowerCase().endsWith(extension));

/** The initials shown while a person has no avatar. */
export const initials = (first: string, last: string, fallback = '') =>
  ((first.trim()[0] ?? '') + (last.trim()[0] ?? '')).toUpperCase() || fallback.slice(0, 1).toUpperCase();
