import { ImageError } from './errors.js';

/** An image reference the way Docker reads it: `python:3.12-slim` is `docker.io/library/python:3.12-slim`. */
export interface ImageReference {
  /** Registry host as written in references (`docker.io`, `ghcr.io`, `127.0.0.1:5000`). */
  domain: string;
  /** Repository path inside the registry (`library/python`). */
  repository: string;
  tag?: string;
  digest?: string;
}

export const DOCKER_HUB = 'docker.io';
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$|^\[[a-fA-F0-9:]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

function invalid(input: string, why: string): ImageError {
  return new ImageError('INVALID_REFERENCE', `invalid image reference "${input}": ${why}`);
}

export function parseReference(input: string): ImageReference {
  let rest = input.trim();
  if (!rest) throw invalid(input, 'it is empty');
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(input, `"${digest}" is not a sha256 digest`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(input, `"${tag}" is not a valid tag`);
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  let domain = DOCKER_HUB;
  let path = rest;
  if (slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    domain = first;
    path = rest.slice(slash + 1);
    if (!DOMAIN.test(domain)) throw invalid(input, `"${domain}" is not a registry host`);
  }
  if (domain === 'index.docker.io' || domain === 'registry-1.docker.io') domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;
  const bad = path.split('/').find((c) => !COMPONENT.test(c));
  if (bad !== undefined)
    throw invalid(input, `repository part "${bad}" must be lower-case letters, digits and . _ -`);
  if (path.length > 255) throw invalid(input, 'the repository name is longer than 255 characters');
  if (!tag && !digest) tag = 'latest';
  return { domain, repository: path, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

/** The full name: `docker.io/library/python:3.12-slim`, with `@digest` when there is one. */
export function formatReference(ref: ImageReference): string {
  return `${ref.domain}/${ref.repository}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** The host the distribution API lives at (Docker Hub's API is not at docker.io). */
export function registryHost(domain: string): string {
  return domain === DOCKER_HUB ? 'registry-1.docker.io' : domain;
}
