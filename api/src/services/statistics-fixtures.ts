import { randomUUID } from 'node:crypto';
import type { Run } from '@sandflow/crds';
import type { Knex } from 'knex';
import { recordsOfRun, saveRunRecords, type RunRecordRow, type StepRecordRow } from './run-records.js';

/** Tests: one ended step of a seeded run, with what it was allocated. */
export interface SeedStep {
  name: string;
  cpu: number;
  memory: number;
  disk?: number;
  start: string;
  stop: string;
  status?: 'COMPLETED' | 'ERROR' | 'STOPPED';
}

/** Tests: an ended run as the API's watch sees it. */
export interface SeedRun {
  organizationId: string;
  groupId: string;
  userId: string;
  session?: string;
  sessionName?: string;
  name?: string;
  /** metadata.uid: the same uid again is the same run ended again (a replay or a retry). */
  uid?: string;
  status?: 'COMPLETED' | 'ERROR' | 'STOPPED';
  start: string;
  stop: string;
  steps: SeedStep[];
}

/** Tests: the records of an ended run (recordsOfRun over a Run object), without Kubernetes. */
export function runRecordsOf(run: SeedRun & { name: string }): { run: RunRecordRow; steps: StepRecordRow[] } {
  const object: Run = {
    apiVersion: 'sandflow.io/v1alpha1',
    kind: 'Run',
    metadata: { name: run.name, uid: run.uid ?? randomUUID(), namespace: 'sf-seeded' },
    spec: { session: run.session ?? 'session-1', group: run.groupId, owner: run.userId },
    status: {
      phase: run.status ?? 'COMPLETED',
      startTime: run.start,
      stopTime: run.stop,
      sandboxStatuses: run.steps.map((s, i) => ({
        id: `n${i + 1}`,
        name: s.name,
        status: s.status ?? 'COMPLETED',
        startTime: s.start,
        stopTime: s.stop,
      })),
    },
  } as Run;
  const allocations = new Map(run.steps.map((s) => [s.name, s]));
  return recordsOfRun(
    object,
    run.organizationId,
    (node) => {
      const s = allocations.get(node.name)!;
      return { sandboxId: `box-${s.name}`, cpu: s.cpu, memory: s.memory, disk: s.disk ?? 100 };
    },
    run.sessionName ?? 'nightly',
  )!;
}

/**
 * Tests: records an ended run as the API's watch would (recordsOfRun + saveRunRecords), without
 * Kubernetes. Returns the run's name (its uuid).
 */
export async function seedRunRecord(db: Knex, run: SeedRun): Promise<string> {
  const name = run.name ?? randomUUID();
  await saveRunRecords(db, runRecordsOf({ ...run, name }));
  return name;
}
