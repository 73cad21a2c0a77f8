import path from 'node:path';
import { z } from 'zod';

const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .default(fallback);

const envSchema = z.object({
  SANDFLOW_DATA_DIR: z.string().min(1).default('.data'),
  SANDFLOW_PORT: port(8080),
  SANDFLOW_KUBE_PORT: port(6443),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  // A plain KUBECONFIG is deliberately not read: a developer's cluster must never be
  // picked up by accident by the all-in-one process.
  SANDFLOW_KUBECONFIG: z.string().min(1).optional(),
  // The console's built files; a developer can point it at another build.
  SANDFLOW_CONSOLE_DIR: z.string().min(1).optional(),
  // Where container steps run: bwrap namespaces over pulled images (or images unpacked in
  // SANDFLOW_IMAGES_DIR), or host processes. Unset: bwrap when it works here (runner/select-runtime.ts).
  SANDFLOW_RUNTIME: z.enum(['process', 'bwrap']).optional(),
  SANDFLOW_IMAGES_DIR: z.string().min(1).optional(),
  // The platform default registry's dockerconfigjson Secret, `namespace/name`.
  SANDFLOW_REGISTRY_SECRET: z
    .string()
    .regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'must be namespace/name')
    .default('default/sandflow-default-registry'),
  // With SANDFLOW_KUBECONFIG: argo-server, where the API reads step logs and output files.
  SANDFLOW_ARGO_SERVER: z.string().url().optional(),
  SANDFLOW_ARGO_TOKEN: z.string().min(1).optional(),
  SANDFLOW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface EmbeddedConfig {
  dataDir: string;
  port: number;
  kubePort: number;
  databaseUrl: string | undefined;
  kubeconfig: string | undefined;
  logLevel: string;
  consoleDir: string | undefined;
  /** Undefined: bwrap where it works, else process with a warning. */
  runtime: 'process' | 'bwrap' | undefined;
  /** Unpacked images the bwrap runtime's local rootfs provider reads. */
  imagesDir: string;
  /** The platform default registry's credentials: a dockerconfigjson Secret. */
  registrySecret: { namespace: string; name: string };
  /** argo-server on a cluster (embedded mode: the local runner serves its routes). */
  argoServer: { url: string; token?: string } | undefined;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    dataDir: path.resolve(e.SANDFLOW_DATA_DIR),
    port: e.SANDFLOW_PORT,
    kubePort: e.SANDFLOW_KUBE_PORT,
    databaseUrl: e.DATABASE_URL,
    kubeconfig: e.SANDFLOW_KUBECONFIG ? path.resolve(e.SANDFLOW_KUBECONFIG) : undefined,
    logLevel: e.SANDFLOW_LOG_LEVEL,
    consoleDir: e.SANDFLOW_CONSOLE_DIR ? path.resolve(e.SANDFLOW_CONSOLE_DIR) : undefined,
    runtime: e.SANDFLOW_RUNTIME,
    imagesDir: path.resolve(e.SANDFLOW_IMAGES_DIR ?? path.join(e.SANDFLOW_DATA_DIR, 'images-unpacked')),
    registrySecret: {
      namespace: e.SANDFLOW_REGISTRY_SECRET.split('/')[0]!,
      name: e.SANDFLOW_REGISTRY_SECRET.split('/')[1]!,
    },
    argoServer: e.SANDFLOW_ARGO_SERVER
      ? { url: e.SANDFLOW_ARGO_SERVER, ...(e.SANDFLOW_ARGO_TOKEN ? { token: e.SANDFLOW_ARGO_TOKEN } : {}) }
      : undefined,
  };
}
