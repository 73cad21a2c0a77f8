// Where a sandbox's images come from and go to: the organization's registry, else the platform
// default registry (Super Settings → Miscellaneous), else Docker Hub; plus the local image
// layout (the embedded runtime's catalog and pull cache).
import {
  BuilderError,
  DOCKER_HUB,
  ImageError,
  formatReference,
  layoutName,
  parseReference,
  registryFor,
  registryHost,
  type CredentialsByHost,
  type ImageReference,
  type LayoutStore,
} from '@sandflow/images';
import type { Knex } from 'knex';
import { badGateway, badRequest, notFound, tooLarge, unavailable } from '../errors.js';
import { openRegistry, type StoredRegistry } from './clusters-registry.js';
import type { PreferenceService } from './preferences.js';
import type { SecretBox } from './secret-box.js';

/** What the image routes need besides the database (`ApiDeps.images`). */
export interface ImagesDeps {
  /** The local OCI layout (embedded: `$SANDFLOW_DATA_DIR/images`); its tags are offered too. */
  layout?: LayoutStore;
  /** Credentials for registries other than the configured ones (a dockerconfigjson Secret). */
  credentials?: CredentialsByHost;
  /** Bound on each registry call of the image check. */
  timeoutMs?: number;
}

/** Images committed without any registry configured live in the local layout under this domain. */
export const LOCAL_DOMAIN = 'sandflow.local';

interface RegistrySetting {
  /** `host[:port][/prefix]`, without a scheme. */
  prefix: string;
  username?: string;
  password?: string;
}

/** `https://reg.example.org/team/` → `reg.example.org/team`. */
function registryPrefix(url: string): string {
  return url
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/+$/, '');
}

function settingOf(value: { url?: string; username?: string; password?: string } | null | undefined) {
  const prefix = value?.url ? registryPrefix(value.url) : '';
  if (!prefix) return null;
  return {
    prefix,
    ...(value?.username ? { username: value.username } : {}),
    ...(value?.password ? { password: value.password } : {}),
  } satisfies RegistrySetting;
}

/** An image failure as the API answers it: the message already names the image or the registry. */
export function imageFailure(error: unknown, subject: string, domain?: string): Error {
  if (error instanceof BuilderError) return builderFailure(error);
  if (!(error instanceof ImageError)) return error as Error;
  // Docker Hub answers an anonymous look-up of a repository it does not have with 401.
  if (error.code === 'UNAUTHORIZED' && domain === DOCKER_HUB)
    return Object.assign(notFound(`Image ${subject}`), { cause: error });
  switch (error.code) {
    case 'INVALID_REFERENCE':
      return Object.assign(badRequest(error.message, 'invalid_image'), { cause: error });
    case 'NOT_FOUND':
      return Object.assign(notFound(`Image ${subject}`), { cause: error });
    case 'PLATFORM_NOT_FOUND':
      return Object.assign(badRequest(error.message, 'invalid_architecture'), { cause: error });
    case 'UNREACHABLE':
      return badGateway('registry_unreachable', error.message, error);
    case 'UNAUTHORIZED':
    case 'INVALID_CREDENTIALS':
      return badGateway('registry_refused', error.message, error);
    default:
      return badGateway('registry_error', error.message, error);
  }
}

/** The builder's own failures (see BuilderErrorCode). */
export function builderFailure(error: BuilderError): Error {
  const wrapped = (e: Error) => Object.assign(e, { cause: error });
  switch (error.code) {
    case 'NOT_FOUND':
      return wrapped(notFound('Container'));
    case 'TOO_LARGE':
      return wrapped(tooLarge(`file: ${error.message}`));
    case 'BAD_PATH':
      return wrapped(badRequest(`path: ${error.message}`, 'invalid_path'));
    case 'UNAVAILABLE':
      return unavailable('builder_unavailable', error.message, error);
  }
}

export function createImageService(deps: {
  db: Knex;
  preferences: PreferenceService;
  secrets: SecretBox;
  images: ImagesDeps;
}) {
  const { db, preferences, secrets, images } = deps;

  /**
   * The organization's registry when it uses a custom one, else the platform default, else none;
   * the password opened (it is stored sealed).
   */
  async function registryOf(organizationId: string | null): Promise<RegistrySetting | null> {
    if (organizationId) {
      const row = await db('organizations').where({ id: organizationId }).first('registry', 'slug');
      const own = row?.registry as StoredRegistry | undefined;
      if (own?.use_custom) {
        const setting = settingOf(openRegistry(own, secrets, `organization ${row.slug}`));
        if (setting) return setting;
      }
    }
    return settingOf(await preferences.registry());
  }

  function credentialsFor(setting: RegistrySetting | null): CredentialsByHost {
    const all: CredentialsByHost = new Map(images.credentials ?? []);
    if (setting?.username && setting.password) {
      const host = registryHost(parseReference(`${setting.prefix}/x`).domain);
      all.set(host, { username: setting.username, password: setting.password });
    }
    return all;
  }

  /**
   * A name as typed on the sandbox page: one naming its registry is taken as is; otherwise it
   * is looked up in the organization's (or the default) registry, like the operator does.
   */
  async function resolve(organizationId: string | null, name: string, version?: string) {
    const setting = await registryOf(organizationId);
    const written = version ? `${name}:${version}` : name;
    const first = name.split('/')[0] ?? '';
    const namesRegistry = name.includes('/') && /[.:]|^localhost$/.test(first);
    const full = setting && !namesRegistry ? `${setting.prefix}/${written}` : written;
    let ref: ImageReference;
    try {
      ref = parseReference(full);
    } catch (error) {
      throw imageFailure(error, name);
    }
    if (await committedByAnother(organizationId, ref)) throw notFound(`Image ${name}`);
    return { ref, reference: formatReference(ref), credentials: credentialsFor(setting) };
  }

  /**
   * Sandboxes committed to a store organizations share (the local layout, the platform default
   * registry) live under `<store>/<org-slug>/…` (commitTarget): another organization's are not
   * there for this one — the platform's credentials would otherwise read them for anybody.
   */
  async function committedByAnother(organizationId: string | null, ref: ImageReference): Promise<boolean> {
    const shared = [LOCAL_DOMAIN, settingOf(await preferences.get('registry'))?.prefix].flatMap((prefix) => {
      if (!prefix) return [];
      const at = parseReference(`${prefix}/x`);
      return [`${at.domain}/${at.repository.slice(0, -1)}`];
    });
    const full = `${ref.domain}/${ref.repository}`;
    const under = shared.find((base) => full.startsWith(base));
    const segments = under ? full.slice(under.length).split('/') : [];
    if (segments.length < 2) return false; // a base image of the store, not a committed sandbox
    const owner = await db('organizations').where({ slug: segments[0] }).first('id');
    return !!owner && owner.id !== organizationId;
  }

  return {
    registryOf,
    resolve,
    /** Credentials for the organization's (or the default) registry: what the builder pushes and pulls with. */
    credentialsOf: async (organizationId: string) => credentialsFor(await registryOf(organizationId)),

    /** The versions of an image: its registry's tags and the local layout's, sorted, no duplicates. */
    async versions(organizationId: string | null, name: string) {
      const { ref, credentials } = await resolve(organizationId, name);
      const bare: ImageReference = { domain: ref.domain, repository: ref.repository };
      const registry = registryFor(bare, credentials, { timeoutMs: images.timeoutMs ?? 10_000 });
      const [remote, local] = await Promise.allSettled([
        // The local domain names the layout only: there is no registry to ask.
        ref.domain === LOCAL_DOMAIN ? Promise.resolve([]) : registry.listTags(ref.repository),
        images.layout ? images.layout.listTags(layoutName(bare)) : Promise.resolve([]),
      ]);
      const localTags = local.status === 'fulfilled' ? local.value : [];
      // Offline, what the layout holds is still usable; the registry's failure is only fatal
      // when nothing local answers for the image.
      if (remote.status === 'rejected' && localTags.length === 0)
        throw imageFailure(remote.reason, name, ref.domain);
      const tags = [...new Set([...(remote.status === 'fulfilled' ? remote.value : []), ...localTags])];
      if (tags.length === 0) throw notFound(`Image ${name}`);
      tags.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      return {
        image: formatReference(bare),
        registry: ref.domain === DOCKER_HUB ? 'Docker Hub' : ref.domain,
        versions: tags.map((value) => ({ value })),
        ...(remote.status === 'rejected'
          ? { warning: `only local versions: ${(remote.reason as Error).message}` }
          : {}),
      };
    },

    /** Where a sandbox committed by an organization goes: `<registry>/<org-slug>/<name>:<version>`. */
    async commitTarget(organizationId: string, name: string, version: string) {
      const org = await db('organizations').where({ id: organizationId }).first('slug');
      if (!org) throw notFound('Organization');
      const setting = await registryOf(organizationId);
      const repository = name.toLowerCase();
      const prefix = setting?.prefix ?? LOCAL_DOMAIN;
      try {
        const ref = parseReference(`${prefix}/${org.slug as string}/${repository}:${version}`);
        return { reference: formatReference(ref), credentials: credentialsFor(setting) };
      } catch (error) {
        throw Object.assign(badRequest(`name: ${(error as Error).message}`, 'invalid_name'), {
          cause: error,
        });
      }
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
