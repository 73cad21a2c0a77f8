import { z } from 'zod';
import { route, type RouteDefinition } from '../http/route.js';
import { zText, zUuid } from '../http/schemas.js';
import type { Services } from '../services/index.js';

/** A builder container's id as the builder makes them (a uuid, or a name of its own). */
export const zContainerId = zText(128, { min: 1 }).regex(
  /^[A-Za-z0-9][\w.-]*$/,
  'must be a container id (letters, digits, . _ -)',
);

/** Spec 1 §5: letters, digits and underscore; `#` has its own message. */
export const zSandboxName = zText(100, { min: 1, minMessage: 'Please, enter a valid name' })
  .refine((v) => !v.includes('#'), 'Invalid character in name: #')
  .refine((v) => /^\w+$/.test(v), 'only letters, digits and underscore');

/** Spec 1 §5: a letter or digit, then letters, digits, - _ . (128 at most). */
export const zSandboxVersion = zText(128, {
  min: 1,
  minMessage: 'Please, enter a valid version',
  maxMessage: 'Invalid sandbox version format',
}).regex(/^[A-Za-z0-9][\w.-]*$/, 'Invalid sandbox version format');

const zImageName = zText(300, { min: 1, minMessage: 'must not be empty' });

const containerParams = z.object({ uuid: zContainerId }).strict();

export function imageRoutes(services: Services): RouteDefinition[] {
  const { images, containers } = services;
  const stop = route({
    method: 'delete',
    path: '/image/:uuid',
    tag: 'sandboxes',
    summary: 'Stop a builder container of the caller (leaving the sandbox page).',
    params: containerParams,
    result: z.literal(true),
    async handler({ caller, params }) {
      await containers.stop(caller!, params.uuid);
      return true as const;
    },
  });
  return [
    route({
      method: 'get',
      path: '/image/:name',
      tag: 'sandboxes',
      summary:
        "Check an image name (URL-encoded; may hold / and :): its versions in the organization's registry, else the platform default registry, else Docker Hub, plus the local image store's.",
      params: z.object({ name: zImageName }).strict(),
      result: z.object({
        image: z.string().describe('The full name looked up, e.g. docker.io/library/python.'),
        registry: z.string(),
        versions: z.array(z.object({ value: z.string() })),
        warning: z
          .string()
          .optional()
          .describe('Set when the registry failed and only local versions are listed.'),
      }),
      async handler({ caller, params }) {
        return images.versions(caller!.currentOrganizationId, params.name);
      },
    }),
    route({
      method: 'post',
      path: '/image',
      tag: 'sandboxes',
      summary: 'Start a builder container from an image; answers its id.',
      body: z
        .object({
          source_image: zImageName,
          source_version: zSandboxVersion,
          name: zSandboxName,
          architecture: z.enum(['amd64', 'arm']).optional(),
          group: zUuid
            .optional()
            .describe("The group whose GID the shells run with (default: the caller's first)."),
        })
        .strict(),
      result: z.string().describe('The container id.'),
      async handler({ caller, body }) {
        return (await containers.start(caller!, body)).id;
      },
    }),
    route({
      method: 'post',
      path: '/image/:uuid',
      tag: 'sandboxes',
      summary:
        'Start a builder container from a saved sandbox (its committed image, else its source image); answers its id.',
      params: z
        .object({
          uuid: zText(253, { min: 1 }).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a sandbox id'),
        })
        .strict(),
      body: z.object({ sandbox_name: zText(100).optional() }).strict(),
      result: z.string().describe('The container id.'),
      async handler({ caller, params }) {
        return (await containers.startFromSandbox(caller!, params.uuid)).id;
      },
    }),
    stop,
    // navigator.sendBeacon can only POST (text/plain or a form), so page unload comes this way.
    route({
      method: 'post',
      path: '/image/:container/delete',
      tag: 'sandboxes',
      summary: 'Stop a builder container of the caller (the page-unload beacon; any body is ignored).',
      params: z.object({ container: zContainerId }).strict(),
      result: z.literal(true),
      async handler({ caller, params }) {
        await containers.stop(caller!, params.container);
        return true as const;
      },
    }),
  ];
}
