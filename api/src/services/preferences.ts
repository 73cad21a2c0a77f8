import type { Knex } from 'knex';

/** Spec 3 §3 platform preferences, with their defaults on a fresh install. */
export interface PlatformPreferences {
  allow_new_organization: boolean;
  registry: { url: string; username: string; password: string };
  disable_provisioning: boolean;
}

const DEFAULTS: PlatformPreferences = {
  allow_new_organization: true,
  registry: { url: '', username: '', password: '' },
  disable_provisioning: false,
};

export function createPreferenceService(db: Knex) {
  async function all(): Promise<PlatformPreferences> {
    const rows = await db('platform_settings').select('key', 'value');
    const stored = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { ...DEFAULTS, ...stored };
  }
  return {
    all,
    async get<K extends keyof PlatformPreferences>(key: K): Promise<PlatformPreferences[K]> {
      return (await all())[key];
    },
    async set(values: Partial<PlatformPreferences>): Promise<PlatformPreferences> {
      for (const [key, value] of Object.entries(values)) {
        if (value === undefined) continue;
        await db('platform_settings')
          .insert({ key, value: JSON.stringify(value) })
          .onConflict('key')
          .merge();
      }
      return all();
    },
  };
}

export type PreferenceService = ReturnType<typeof createPreferenceService>;
