// The PodBuilder as the cluster-mode API runs it (embedded/src/cluster/api.ts): organizations'
// namespaces from their slugs (the API's resource layer), registry credentials of the organization
// (its own registry, else the platform default), uploads and commits in `<dataDir>/builder`, and
// `sandflow.local` (the API's name for "no registry") refused as a place to pull from or save to.
import fs from 'node:fs';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { LOCAL_DOMAIN, registryCredentials, servicesFor, type ApiDeps } from '@sandflow/api';
import type { Logger } from 'pino';
import { PodBuilder, type PodBuilderOptions } from './pod-builder.js';

export function podBuilderFor(
  deps: ApiDeps,
  options: {
    kubeConfig: KubeConfig;
    helperImage: string;
    /** A writable folder (the API Pod's emptyDir). */
    dataDir: string;
    logger?: Logger;
  } & Pick<PodBuilderOptions, 'startTimeoutMs'>,
): PodBuilder {
  const tmpDir = path.join(options.dataDir, 'builder');
  fs.mkdirSync(tmpDir, { recursive: true });
  return new PodBuilder({
    kubeConfig: options.kubeConfig,
    namespaceOf: async (organization) => {
      const namespace = await servicesFor(deps).resources?.namespaceOf(organization);
      if (!namespace) throw new Error(`organization ${organization} has no namespace`);
      return namespace;
    },
    credentials: (organization) => registryCredentials(deps, organization),
    helperImage: options.helperImage,
    tmpDir,
    localDomain: LOCAL_DOMAIN,
    ...(options.startTimeoutMs ? { startTimeoutMs: options.startTimeoutMs } : {}),
    ...(options.logger ? { logger: options.logger.child({ component: 'builder' }) } : {}),
  });
}
