// The agent protocol: one WebSocket from an agent (`sandflow agent --api URL --token T`) to the API,
// JSON messages both ways. The platform's Argo Workflow stays the record: the API sends the agent the
// workflows assigned to its cluster manager (`apply`, idempotent by namespace/name) and removals
// (`delete`); the agent reports their status (`status`, acknowledged by `ack` once written) and
// re-announces everything it holds after a reconnect (`hello.workflows`). argo-server requests of the
// run dashboard travel as `http` and come back as `http-head` / `http-body` / `http-end`.
import { z } from 'zod';

/** Where agents connect (under the API base, so the console's proxy and ingress rules cover it). */
export const AGENT_PATH = '/api/v0/cluster/agent';

/** The most an agent may claim: larger numbers are refused as absurd (millicores, MB). */
export const MAX_RESOURCES = { cpu: 4096 * 1000, memory: 64 * 1024 * 1024, disk: 1024 * 1024 * 1024 };

export const resourcesSchema = z.object({
  cpu: z.number().int().min(1).max(MAX_RESOURCES.cpu),
  memory: z.number().int().min(1).max(MAX_RESOURCES.memory),
  disk: z.number().int().min(1).max(MAX_RESOURCES.disk),
  architecture: z.enum(['amd64', 'arm64', 'arm', 'ppc64le', 's390x', 'riscv64']),
});
export type AgentResources = z.infer<typeof resourcesSchema>;

const name = z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/);
const ref = z.object({ namespace: name, name });
export type WorkflowRef = z.infer<typeof ref>;

/** A workflow's status as the agent's runner wrote it (Argo's shape; checked loosely, stored as is). */
const argoStatus = z
  .object({ phase: z.string().optional(), nodes: z.record(z.string(), z.unknown()).optional() })
  .passthrough();

export const agentMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    version: z.string().max(64),
    label: z.string().max(253),
    resources: resourcesSchema,
    /** What the agent holds now, so nothing is lost or run twice across a reconnect. */
    workflows: z.array(ref).max(10_000),
  }),
  z.object({ type: z.literal('beat'), resources: resourcesSchema }),
  z.object({ type: z.literal('status'), seq: z.number().int(), ...ref.shape, status: argoStatus }),
  z.object({ type: z.literal('deleted'), ...ref.shape }),
  z.object({
    type: z.literal('http-head'),
    id: z.number().int(),
    status: z.number().int().min(100).max(599),
    headers: z.record(z.string(), z.string()),
  }),
  z.object({ type: z.literal('http-body'), id: z.number().int(), data: z.string() }),
  z.object({ type: z.literal('http-end'), id: z.number().int(), error: z.string().optional() }),
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/** What the API sends. `apply.withStatus`: the platform changed the status (a retry reset): take it. */
export type HubMessage =
  | { type: 'welcome'; clusterManager: string; heartbeatMs: number }
  /** After the hello: what it held and should not was deleted; what it should run was sent. */
  | { type: 'resumed' }
  | { type: 'apply'; workflow: AppliedWorkflow; withStatus: boolean }
  | ({ type: 'delete'; reason: string } & WorkflowRef)
  | { type: 'ack'; seq: number }
  | { type: 'refused'; seq?: number; message: string }
  | { type: 'http'; id: number; path: string }
  | { type: 'http-cancel'; id: number };

export interface AppliedWorkflow {
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}
