import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { offered } from './main.js';

const measured = { cpu: 8000, memory: 16_384, disk: 200_000 };

describe('what an agent offers', () => {
  it.each([
    ['nothing given: the machine', {}, measured],
    ['--cpu only', { cpu: '2000' }, { ...measured, cpu: 2000 }],
    ['all three', { cpu: '3000', memory: '4096', disk: '10000' }, { cpu: 3000, memory: 4096, disk: 10_000 }],
    ['more than the machine (a declared offer)', { cpu: '16000' }, { ...measured, cpu: 16_000 }],
  ])('%s', (_name, flags, want) => {
    expect(offered(measured, flags)).toEqual(want);
  });

  it.each([
    ['zero', { cpu: '0' }, '--cpu'],
    ['negative', { memory: '-1' }, '--memory'],
    ['a fraction', { disk: '1.5' }, '--disk'],
    ['not a number', { cpu: 'two' }, '--cpu'],
  ])('refuses %s', (_name, flags, flag) => {
    expect(() => offered(measured, flags)).toThrow(ConfigError);
    expect(() => offered(measured, flags)).toThrow(`${flag} must be a whole number`);
  });
});
