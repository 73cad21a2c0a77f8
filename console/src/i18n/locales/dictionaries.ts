/** A language's dictionaries by namespace ('auth', 'common', …). */
export type Dictionaries = Record<string, Record<string, unknown>>;

/** A language folder's JSON files (import.meta.glob of './*.json') by namespace. */
export function dictionaries(files: Record<string, Record<string, unknown>>): Dictionaries {
  return Object.fromEntries(
    Object.entries(files).map(([path, dictionary]) => [/([^/]+)\.json$/.exec(path)![1]!, dictionary]),
  );
}
