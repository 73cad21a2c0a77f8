import { describe, expect, it } from 'vitest';
import { parseChallenge } from './auth.js';

describe('parseChallenge', () => {
  it.each([
    [
      'Docker Hub',
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/python:pull"',
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.docker.io/token',
          service: 'registry.docker.io',
          scope: 'repository:library/python:pull',
        },
      },
    ],
    [
      'GHCR',
      'Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:acme/app:pull"',
      {
        scheme: 'bearer',
        params: { realm: 'https://ghcr.io/token', service: 'ghcr.io', scope: 'repository:acme/app:pull' },
      },
    ],
    [
      'Harbor, push and pull scope',
      'Bearer realm="https://harbor.example.com/service/token", service="harbor-registry", scope="repository:lib/app:pull,push"',
      {
        scheme: 'bearer',
        params: {
          realm: 'https://harbor.example.com/service/token',
          service: 'harbor-registry',
          scope: 'repository:lib/app:pull,push',
        },
      },
    ],
    [
      'basic (docker-registry htpasswd)',
      'Basic realm="sandflow-test"',
      { scheme: 'basic', params: { realm: 'sandflow-test' } },
    ],
    [
      'unquoted values',
      'Bearer realm=https://r/t,service=s',
      { scheme: 'bearer', params: { realm: 'https://r/t', service: 's' } },
    ],
  ])('%s', (_name, header, expected) => {
    expect(parseChallenge(header)).toEqual(expected);
  });
});
