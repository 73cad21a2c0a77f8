import { describe, expect, it } from 'vitest';
import { formatReference, parseReference, registryHost } from './reference.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseReference', () => {
  it.each([
    ['python:3.12-slim', { domain: 'docker.io', repository: 'library/python', tag: '3.12-slim' }],
    ['busybox', { domain: 'docker.io', repository: 'library/busybox', tag: 'latest' }],
    ['bitnami/redis:7', { domain: 'docker.io', repository: 'bitnami/redis', tag: '7' }],
    ['index.docker.io/library/alpine:3', { domain: 'docker.io', repository: 'library/alpine', tag: '3' }],
    ['ghcr.io/acme/tools/cli:v1.2', { domain: 'ghcr.io', repository: 'acme/tools/cli', tag: 'v1.2' }],
    ['127.0.0.1:5000/app:dev', { domain: '127.0.0.1:5000', repository: 'app', tag: 'dev' }],
    ['localhost/app', { domain: 'localhost', repository: 'app', tag: 'latest' }],
    [
      'registry.example.com:8443/team/app',
      { domain: 'registry.example.com:8443', repository: 'team/app', tag: 'latest' },
    ],
    [`python@${DIGEST}`, { domain: 'docker.io', repository: 'library/python', digest: DIGEST }],
    [`ghcr.io/a/b:1@${DIGEST}`, { domain: 'ghcr.io', repository: 'a/b', tag: '1', digest: DIGEST }],
  ])('%s', (input, expected) => {
    expect(parseReference(input)).toEqual(expected);
  });

  it.each([
    ['', /it is empty/],
    ['Python:3', /repository part "Python"/],
    ['python:bad tag', /not a valid tag/],
    ['python@sha256:123', /not a sha256 digest/],
    ['a//b', /repository part ""/],
    ['ghcr.io/-bad:1', /repository part "-bad"/],
  ])('refuses %j', (input, message) => {
    expect(() => parseReference(input)).toThrow(message);
    expect(() => parseReference(input)).toThrow(expect.objectContaining({ code: 'INVALID_REFERENCE' }));
  });

  it('formats the full name back and knows where Docker Hub serves its API', () => {
    const ref = parseReference('python:3.12-slim');
    expect(formatReference(ref)).toBe('docker.io/library/python:3.12-slim');
    expect(registryHost(ref.domain)).toBe('registry-1.docker.io');
    expect(registryHost('ghcr.io')).toBe('ghcr.io');
  });
});
