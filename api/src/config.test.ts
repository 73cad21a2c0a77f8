import { describe, expect, it } from 'vitest';
import { loadApiConfig } from './config.js';

describe('loadApiConfig: the bot check', () => {
  it.each([
    ['nothing set', {}, undefined],
    ['a provider alone', { SANDFLOW_BOT_CHECK_PROVIDER: 'turnstile' }, undefined],
    ['a secret alone', { SANDFLOW_BOT_CHECK_SECRET: 's3cret' }, undefined],
    ['a site key alone', { SANDFLOW_BOT_CHECK_SITE_KEY: 'site-1' }, undefined],
    [
      'provider, secret and site key',
      {
        SANDFLOW_BOT_CHECK_PROVIDER: 'hcaptcha',
        SANDFLOW_BOT_CHECK_SECRET: 's3cret',
        SANDFLOW_BOT_CHECK_SITE_KEY: 'site-1',
      },
      { provider: 'hcaptcha', secret: 's3cret', siteKey: 'site-1' },
    ],
  ])('%s → %j', (_what, env, expected) => {
    expect(loadApiConfig(env).botCheck).toEqual(expected);
  });

  it.each([
    [
      'a provider and a secret without a site key',
      { SANDFLOW_BOT_CHECK_PROVIDER: 'recaptcha', SANDFLOW_BOT_CHECK_SECRET: 's3cret' },
      /SANDFLOW_BOT_CHECK_SITE_KEY: required/,
    ],
    [
      'an empty site key',
      {
        SANDFLOW_BOT_CHECK_PROVIDER: 'turnstile',
        SANDFLOW_BOT_CHECK_SECRET: 's3cret',
        SANDFLOW_BOT_CHECK_SITE_KEY: '',
      },
      /SANDFLOW_BOT_CHECK_SITE_KEY: required/,
    ],
    [
      'an unknown provider',
      {
        SANDFLOW_BOT_CHECK_PROVIDER: 'friendlycaptcha',
        SANDFLOW_BOT_CHECK_SECRET: 's3cret',
        SANDFLOW_BOT_CHECK_SITE_KEY: 'site-1',
      },
      /SANDFLOW_BOT_CHECK_PROVIDER/,
    ],
  ])('refuses %s, naming the variable', (_what, env, message) => {
    expect(() => loadApiConfig(env)).toThrow(message);
  });
});

describe('loadApiConfig: trust proxy', () => {
  it.each([
    ['unset', undefined, false],
    ['false', 'false', false],
    ['true', 'true', true],
    ['a number of hops', '1', 1],
    ['a list of subnets', 'loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('%s', (_case, value, expected) => {
    const env = value === undefined ? {} : { SANDFLOW_TRUST_PROXY: value };
    expect(loadApiConfig(env).trustProxy).toEqual(expected);
  });

  it('refuses what Express could not read, naming the variable', () => {
    expect(() => loadApiConfig({ SANDFLOW_TRUST_PROXY: 'yes please!' })).toThrow(
      /SANDFLOW_TRUST_PROXY: true, false, a number of proxy hops/,
    );
  });
});

describe('loadApiConfig: the secrets key (registry passwords encrypted at rest)', () => {
  const KEY = Buffer.alloc(32, 1);
  const OLD = Buffer.alloc(32, 2);

  it.each([
    ['unset: the API starts without one', {}, { key: undefined, previousKey: undefined }],
    ['empty is unset', { SANDFLOW_SECRETS_KEY: '' }, { key: undefined, previousKey: undefined }],
    ['base64', { SANDFLOW_SECRETS_KEY: KEY.toString('base64') }, { key: KEY, previousKey: undefined }],
    ['base64url', { SANDFLOW_SECRETS_KEY: KEY.toString('base64url') }, { key: KEY, previousKey: undefined }],
    [
      'with the previous key of a rotation',
      { SANDFLOW_SECRETS_KEY: KEY.toString('base64'), SANDFLOW_SECRETS_KEY_PREVIOUS: OLD.toString('base64') },
      { key: KEY, previousKey: OLD },
    ],
  ])('%s', (_case, env, expected) => {
    expect(loadApiConfig(env).secrets).toEqual(expected);
  });

  it.each([
    [
      'a key of 16 bytes',
      { SANDFLOW_SECRETS_KEY: Buffer.alloc(16, 5).toString('base64') },
      /SANDFLOW_SECRETS_KEY: must be the base64 of 32 random bytes .*decodes to 16 bytes/,
    ],
    [
      'a key that is not base64',
      { SANDFLOW_SECRETS_KEY: 'correct horse battery staple' },
      /SANDFLOW_SECRETS_KEY: must be base64/,
    ],
    [
      'a previous key of the wrong size',
      { SANDFLOW_SECRETS_KEY: KEY.toString('base64'), SANDFLOW_SECRETS_KEY_PREVIOUS: 'c2hvcnQ=' },
      /SANDFLOW_SECRETS_KEY_PREVIOUS: must be the base64 of 32 random bytes/,
    ],
    [
      'a previous key without a current one',
      { SANDFLOW_SECRETS_KEY_PREVIOUS: OLD.toString('base64') },
      /SANDFLOW_SECRETS_KEY_PREVIOUS: needs SANDFLOW_SECRETS_KEY too/,
    ],
  ])('refuses %s, naming the variable and never the value', (_case, env, message) => {
    expect(() => loadApiConfig(env)).toThrow(message);
    try {
      loadApiConfig(env);
    } catch (error) {
      for (const value of Object.values(env)) expect((error as Error).message).not.toContain(value);
    }
  });
});
