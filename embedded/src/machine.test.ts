import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { machineResources } from './machine.js';

describe('machineResources', () => {
  it("announces this machine's cores, memory and the free space of the data folder's disk", () => {
    const dir = fs.mkdtempSync(`${os.tmpdir()}/sandflow-machine-`);
    try {
      const r = machineResources(dir);
      expect(r.cpu).toBe(os.cpus().length * 1000);
      expect(r.memory).toBe(Math.floor(os.totalmem() / 1048576));
      const stat = fs.statfsSync(dir);
      expect(r.disk).toBeGreaterThan(0);
      expect(r.disk).toBeLessThanOrEqual((stat.blocks * stat.bsize) / 1048576);
      expect(Number.isInteger(r.disk)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
