/** Moves `id` into the admins (toAdmins) or out of them; order kept, no duplicates. */
export function moveAdmin(admins: readonly string[], id: string, toAdmins: boolean): string[] {
  const rest = admins.filter((a) => a !== id);
  return toAdmins ? [...rest, id] : rest;
}

/** Whether the admin set differs from the saved one (Save is enabled only then). */
export const adminsChanged = (saved: readonly string[], current: readonly string[]) =>
  saved.length !== current.length || current.some((id) => !saved.includes(id));
