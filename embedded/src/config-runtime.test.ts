import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('SANDFLOW_RUNTIME', () => {
  it.each([
    { env: {}, runtime: undefined, imagesDir: path.resolve('.data/images-unpacked') },
    {
      env: { SANDFLOW_RUNTIME: 'process' },
      runtime: 'process',
      imagesDir: path.resolve('.data/images-unpacked'),
    },
    {
      env: { SANDFLOW_RUNTIME: 'bwrap', SANDFLOW_DATA_DIR: '/var/sf' },
      runtime: 'bwrap',
      imagesDir: '/var/sf/images-unpacked',
    },
    {
      env: { SANDFLOW_RUNTIME: 'bwrap', SANDFLOW_IMAGES_DIR: '/srv/img' },
      runtime: 'bwrap',
      imagesDir: '/srv/img',
    },
  ])('$env selects $runtime with images in $imagesDir', ({ env, runtime, imagesDir }) => {
    expect(loadConfig(env)).toMatchObject({ runtime, imagesDir });
  });

  it.each([
    { env: {}, secret: { namespace: 'default', name: 'sandflow-default-registry' } },
    {
      env: { SANDFLOW_REGISTRY_SECRET: 'sf-platform/hub' },
      secret: { namespace: 'sf-platform', name: 'hub' },
    },
  ])('SANDFLOW_REGISTRY_SECRET $env names $secret', ({ env, secret }) => {
    expect(loadConfig(env).registrySecret).toEqual(secret);
  });

  it('refuses a registry Secret that is not namespace/name', () => {
    expect(() => loadConfig({ SANDFLOW_REGISTRY_SECRET: 'hub' })).toThrow(/SANDFLOW_REGISTRY_SECRET/);
  });

  it('refuses an unknown runtime, naming the variable', () => {
    expect(() => loadConfig({ SANDFLOW_RUNTIME: 'docker' })).toThrow(ConfigError);
    expect(() => loadConfig({ SANDFLOW_RUNTIME: 'docker' })).toThrow(/SANDFLOW_RUNTIME/);
  });
});
