// Argo's WorkflowTaskResult CRD is vendored for the envtest proof byte for byte (argo-crds/README.md).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const FILE = new URL('./argo-crds/argoproj.io_workflowtaskresults.yaml', import.meta.url);
const README = new URL('./argo-crds/README.md', import.meta.url);

describe("Argo's vendored WorkflowTaskResult CRD", () => {
  it('is upstream v4.1.2 unmodified (the sha256 its README records)', () => {
    const recorded = /sha256 `([0-9a-f]{64})`/.exec(fs.readFileSync(README, 'utf8'))?.[1];
    const actual = createHash('sha256').update(fs.readFileSync(FILE)).digest('hex');
    expect(actual).toBe(recorded);
    expect(actual).toBe('69490cddb4dcc71a6d0464e0db39b9e0d71315859d63d2bccbeeec4e947e88cc');
  });
});
