export type SectionKey = 'sandbox' | 'workflow' | 'session';

export interface Section {
  key: SectionKey;
  to: string;
  /** Paths that belong to the section (the session section also owns its edit pages). */
  prefixes: readonly string[];
}

/** The sections of the top bar (spec 1 §2.2). */
export const SECTIONS: readonly Section[] = [
  { key: 'sandbox', to: '/sandbox/list', prefixes: ['/sandbox'] },
  { key: 'workflow', to: '/workflow/list', prefixes: ['/workflow'] },
  { key: 'session', to: '/session/list', prefixes: ['/session', '/schedule', '/event'] },
];

/** The section the current path belongs to, by path prefix; null elsewhere (dashboard, settings…). */
export function activeSection(pathname: string): SectionKey | null {
  const match = SECTIONS.find((section) =>
    section.prefixes.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`)),
  );
  return match?.key ?? null;
}
