// @sandflow/kube: the Kubernetes toolkit of the operator, the API and the local runner.
export * from './argo.js';
export { Kube, keepAliveConfig, type ObjectList, type WriteOptions } from './client.js';
export { sameJson, setCondition, type Condition } from './conditions.js';
export { connectionOf, lostAfterMs, type Connection } from './connection.js';
export { isAlreadyExists, isConflict, isNotFound, statusCode } from './errors.js';
export {
  startInformer,
  type Cache,
  type EventType,
  type Informer,
  type InformerOptions,
} from './informer.js';
export * from './names.js';
export { cpuMillis, memoryMiB, parseQuantity } from './quantity.js';
export { WorkQueue, type QueueOptions } from './workqueue.js';
export {
  ArgoServerError,
  createArgoClient,
  podNameOf,
  type ArgoApiNode,
  type ArgoApiWorkflow,
  type ArgoClient,
  type ArgoLogEntry,
  type ArgoServer,
  type ArtifactStream,
  type LogQuery,
} from './argo-client.js';
export {
  createEnvelope,
  decodeSecretsKey,
  ENVELOPE_PREFIX,
  EnvelopeOpenError,
  isSealed,
  PREVIOUS_SECRETS_KEY_VARIABLE,
  SECRETS_KEY_VARIABLE,
  secretsKeyId,
  type Envelope,
  type EnvelopeKeys,
} from './secret-envelope.js';
