// v1 ContainerStatus as the kubelet reports it, and the transitions the pod runner makes on it.
export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        reason: string;
        message?: string;
        startedAt?: string;
        finishedAt: string;
        containerID?: string;
      };
    };

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: Partial<ContainerState>;
}

export const nowIso = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export function waitingStatus(
  name: string,
  image: string,
  reason: string,
  message?: string,
): ContainerStatus {
  return {
    name,
    image,
    imageID: '',
    ready: false,
    started: false,
    restartCount: 0,
    state: { waiting: { reason, ...(message ? { message } : {}) } },
    lastState: {},
  };
}

export function setWaiting(s: ContainerStatus, reason: string, message?: string): void {
  s.ready = false;
  s.started = false;
  s.state = { waiting: { reason, ...(message ? { message } : {}) } };
}

export function setRunning(s: ContainerStatus, containerID: string): void {
  s.containerID = containerID;
  s.ready = true;
  s.started = true;
  s.state = { running: { startedAt: nowIso() } };
}

export function setTerminated(s: ContainerStatus, exitCode: number, message?: string): void {
  const startedAt = 'running' in s.state ? s.state.running.startedAt : undefined;
  s.ready = false;
  s.started = false;
  s.state = {
    terminated: {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      ...(message ? { message } : {}),
      ...(startedAt ? { startedAt } : {}),
      finishedAt: nowIso(),
      ...(s.containerID ? { containerID: s.containerID } : {}),
    },
  };
}

/** Waiting for a restart: the finished run becomes lastState (restartCount moves at the restart). */
export function setRestarting(s: ContainerStatus, backoffSeconds: number, pod: string): void {
  s.lastState = { ...s.state };
  setWaiting(
    s,
    'CrashLoopBackOff',
    `back-off ${backoffSeconds}s restarting failed container=${s.name} pod=${pod}`,
  );
}
