import { describe, expect, it } from 'vitest';
import { findBwrap } from './bwrap.js';
import { chooseRuntime, probeBwrap, RuntimeUnavailableError } from './select-runtime.js';

const bwrap = findBwrap();
// Real binaries standing for the machines the choice meets: none, one that fails (as bwrap does
// where user namespaces are disabled), and the real one.
const absent = () => probeBwrap(undefined);
const failing = () => probeBwrap('/bin/false');

describe('probeBwrap', () => {
  it.each([
    { what: 'no binary', bin: undefined, reason: /not on PATH/ },
    { what: 'a binary that fails', bin: '/bin/false', reason: /\/bin\/false cannot make namespaces/ },
  ])('says why bwrap is unusable with $what', ({ bin, reason }) => {
    const probed = probeBwrap(bin);
    expect(probed.ok).toBe(false);
    expect(!probed.ok && probed.reason).toMatch(reason);
  });

  it.skipIf(!bwrap)('succeeds with the installed bwrap', () => {
    expect(probeBwrap(bwrap)).toEqual({ ok: true, bwrap });
  });
});

describe('chooseRuntime', () => {
  it.each([
    {
      requested: undefined,
      probe: absent,
      kind: 'process',
      isolated: false,
      warning: /NOT isolated.*bubblewrap/,
    },
    {
      requested: undefined,
      probe: failing,
      kind: 'process',
      isolated: false,
      warning: /cannot make namespaces/,
    },
    {
      requested: 'process' as const,
      probe: failing,
      kind: 'process',
      isolated: false,
      warning: /host processes/,
    },
  ])('$requested with $probe.name gives $kind', ({ requested, probe, kind, isolated, warning }) => {
    const choice = chooseRuntime(requested, probe);
    expect(choice).toMatchObject({ kind, isolated });
    expect(choice.warning).toMatch(warning);
  });

  it('explicit process never probes', () => {
    expect(
      chooseRuntime('process', () => {
        throw new Error('probed');
      }).kind,
    ).toBe('process');
  });

  it.each([absent, failing])('explicit bwrap fails at start when %o cannot run it', (probe) => {
    expect(() => chooseRuntime('bwrap', probe)).toThrow(RuntimeUnavailableError);
    expect(() => chooseRuntime('bwrap', probe)).toThrow(
      /SANDFLOW_RUNTIME=bwrap: .*apt-get install bubblewrap/,
    );
  });

  it.skipIf(!bwrap).each([undefined, 'bwrap' as const])('%s picks bwrap where it works', (requested) => {
    expect(chooseRuntime(requested)).toEqual({ kind: 'bwrap', isolated: true, bwrap });
  });
});
