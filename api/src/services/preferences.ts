import type { Knex } from 'knex';
import { createSecretBox, type SecretBox } from './secret-box.js';

/** Spec 3 §3 platform preferences, with their defaults on a fresh install. */
export interface PlatformPreferences {
  allow_new_organization: boolean;
  /** `password` as stored: sealed by the secret box (or a plain string saved before encryption). */
  registry: { url: string; username: string; password: string };
  disable_provisioning: boolean;
}

const DEFAULTS: PlatformPreferences = {
  allow_new_organization: true,
  registry: { url: '', username: '', password: '' },
  disable_provisioning: false,
};

/** The field the default registry's password is named by in messages. */
const PASSWORD_FIELD = 'registry.password';

/**
 * The platform_settings rows. The default registry's password is write-only and stored sealed:
 * `all`/`get` give it as stored, `registry()` opened (what the pull Secret and the image calls need).
 * Without `secrets` (a service that only reads flags) a new password cannot be stored.
 */
export function createPreferenceService(db: Knex, secrets: SecretBox = createSecretBox()) {
  async function all(): Promise<PlatformPreferences> {
    const rows = await db('platform_settings').select('key', 'value');
    const stored = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    return { ...DEFAULTS, ...stored };
  }

  /**
   * The registry as it is to be stored: a password equal to the stored one (sent back unchanged)
   * stays, sealed again under the current key if needed; any other is sealed (422 without a key).
   */
  function storedRegistry(
    current: PlatformPreferences['registry'],
    next: PlatformPreferences['registry'],
  ): PlatformPreferences['registry'] {
    const password =
      next.password === current.password
        ? secrets.reseal(next.password, PASSWORD_FIELD)
        : next.password
          ? secrets.seal(next.password, PASSWORD_FIELD)
          : '';
    return { ...next, password };
  }

  return {
    all,
    async get<K extends keyof PlatformPreferences>(key: K): Promise<PlatformPreferences[K]> {
      return (await all())[key];
    },
    /** The platform default registry with its password opened. */
    async registry(): Promise<PlatformPreferences['registry']> {
      const stored = (await all()).registry;
      if (!stored.password) return stored;
      return { ...stored, password: secrets.open(stored.password, `${PASSWORD_FIELD} of the platform`) };
    },
    async set(values: Partial<PlatformPreferences>): Promise<PlatformPreferences> {
      const current = values.registry ? await all() : undefined;
      const changes = {
        ...values,
        ...(values.registry ? { registry: storedRegistry(current!.registry, values.registry) } : {}),
      };
      for (const [key, value] of Object.entries(changes)) {
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
