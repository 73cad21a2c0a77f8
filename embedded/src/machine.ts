import fs from 'node:fs';
import os from 'node:os';

const MB = 1024 * 1024;

/**
 * What this machine offers to runs, in the ClusterManager's units (cpu millicores,
 * memory and disk MB): every core, the total memory, and the space still free on the
 * disk holding the data folder (where run files, logs and bundles go). The embedded
 * launcher announces it as the platform cluster manager's resources.
 */
export function machineResources(dataDir: string): { cpu: number; memory: number; disk: number } {
  const disk = fs.statfsSync(dataDir);
  return {
    cpu: os.cpus().length * 1000,
    memory: Math.floor(os.totalmem() / MB),
    disk: Math.floor((Number(disk.bavail) * Number(disk.bsize)) / MB),
  };
}
