import { describe, expect, it } from 'vitest';
import { credentialsFromSecret, parseDockerConfigJson } from './credentials.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('parseDockerConfigJson', () => {
  it.each([
    [
      "Docker Hub's legacy key",
      { 'https://index.docker.io/v1/': { auth: b64('bob:pw') } },
      'registry-1.docker.io',
      { username: 'bob', password: 'pw' },
    ],
    [
      'a bare host',
      { 'ghcr.io': { auth: b64('me:ghp_x:y') } },
      'ghcr.io',
      { username: 'me', password: 'ghp_x:y' },
    ],
    [
      'a URL with a port and path',
      { 'https://harbor.example.com:8443/v2/': { username: 'robot$ci', password: 'tok' } },
      'harbor.example.com:8443',
      { username: 'robot$ci', password: 'tok' },
    ],
    [
      'docker.io',
      { 'docker.io': { username: 'u', password: 'p' } },
      'registry-1.docker.io',
      { username: 'u', password: 'p' },
    ],
  ])('%s', (_name, auths, host, expected) => {
    expect(parseDockerConfigJson(JSON.stringify({ auths })).get(host)).toEqual(expected);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no auths', '{}', /no "auths" object/],
    [
      'auth without a colon',
      JSON.stringify({ auths: { h: { auth: b64('nocolon') } } }),
      /not base64 of user:password/,
    ],
    ['an empty entry', JSON.stringify({ auths: { h: {} } }), /neither "auth" nor username and password/],
  ])('refuses %s with INVALID_CREDENTIALS', (_name, json, message) => {
    expect(() => parseDockerConfigJson(json)).toThrow(message);
    expect(() => parseDockerConfigJson(json)).toThrow(
      expect.objectContaining({ code: 'INVALID_CREDENTIALS' }),
    );
  });
});

describe('credentialsFromSecret', () => {
  const config = JSON.stringify({ auths: { 'ghcr.io': { auth: b64('me:pw') } } });
  it.each([
    ['data (base64)', { data: { '.dockerconfigjson': b64(config) } }],
    ['stringData', { stringData: { '.dockerconfigjson': config } }],
  ])('reads %s', (_name, fields) => {
    const secret = {
      type: 'kubernetes.io/dockerconfigjson',
      metadata: { name: 'regcred', namespace: 'org-a' },
      ...fields,
    };
    expect(credentialsFromSecret(secret).get('ghcr.io')).toEqual({ username: 'me', password: 'pw' });
  });

  it('names the Secret when it is of another type', () => {
    expect(() => credentialsFromSecret({ type: 'Opaque', metadata: { name: 'x', namespace: 'ns' } })).toThrow(
      'Secret ns/x is of type Opaque, not kubernetes.io/dockerconfigjson',
    );
  });
});
