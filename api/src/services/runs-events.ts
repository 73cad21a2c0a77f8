import type { Run } from '@sandflow/crds';
import { isConflict, keyOf, type EventType } from '@sandflow/kube';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { DomainError } from '../errors.js';
import { accessOf, existingUsers, type Resources } from '../resources/index.js';
import type { Mailer } from './mailer.js';
import type { NotificationService, RealtimePublisher } from './notifications.js';

/** Marks a Run whose end was announced: `<phase> <stopTime>`, so a replica announces each end once. */
export const NOTIFIED_ANNOTATION = 'sandflow.io/notified';

const FINAL = new Set(['COMPLETED', 'ERROR', 'STOPPED']);
const MEMBERS_TTL_MS = 5_000;

/**
 * The realtime action of a phase change (spec 2 §4 "Realtime effects"): the console moves the run
 * and its session by it. null: nothing the console shows changed.
 */
export function runAction(
  type: EventType,
  before: string | undefined,
  after: string | undefined,
): string | null {
  if (type === 'delete') return 'run.deleted';
  if (type === 'add') return after === 'RUNNING' ? 'run.started' : 'run.created';
  if (before === after) return null;
  switch (after) {
    case 'RUNNING':
      if (before === 'PAUSED') return 'run.resumed';
      if (before === 'ERROR') return 'run.retried';
      if (before === 'COMPLETED' || before === 'STOPPED') return 'run.restarted';
      return 'run.started';
    case 'INIT':
      return before && FINAL.has(before) ? 'run.restarted' : 'run.initializing';
    case 'QUEUED':
      return 'run.queued';
    case 'COMPLETED':
      return 'run.completed';
    case 'ERROR':
      return 'run.failed';
    case 'STOPPED':
      return 'run.stopped';
    case 'PAUSED':
      return 'run.paused';
    default:
      return null;
  }
}

const ENDED: Record<string, { title: string; type: string; verb: string }> = {
  COMPLETED: { title: 'Run completed', type: 'success', verb: 'completed' },
  ERROR: { title: 'Run failed', type: 'danger', verb: 'failed' },
  STOPPED: { title: 'Run stopped', type: 'warning', verb: 'was stopped' },
};

/**
 * Watches Runs (whoever changed them: the operator, the API, kubectl) and
 *  - tells the members who may see a run, on this process's sockets, how it moved (every replica
 *    tells its own sockets);
 *  - when a run ends, sends what its session asks for — a notification (and its e-mail) to the
 *    session's owner and, with notify_group / notify_organization, to the group's or organization's
 *    admins, and a mail to each address of its notifications list — once across replicas: the
 *    replica whose conditional write of NOTIFIED_ANNOTATION succeeds sends.
 */
export function watchRuns(deps: {
  db: Knex;
  resources: Resources;
  logger: Logger;
  mailer: Mailer;
  notifications: NotificationService;
  realtime: () => RealtimePublisher | undefined;
  publicUrl: string;
}): () => void {
  const { db, resources, logger } = deps;
  const phases = new Map<string, string | undefined>();
  const members = new Map<
    string,
    { at: number; list: Promise<{ userId: string; admin: boolean; groups: Set<string> }[]> }
  >();
  let nextId = -1_000_000_000; // below the change feed's ids: never a stored notification's
  let queue = Promise.resolve();

  void resources.synced.then(() => {
    for (const run of resources.runs.list())
      if (!phases.has(keyOf(run))) phases.set(keyOf(run), run.status?.phase);
  });

  function membersOf(organizationId: string) {
    const hit = members.get(organizationId);
    if (hit && Date.now() - hit.at < MEMBERS_TTL_MS) return hit.list;
    const list = (async () => {
      const rows: { user_id: string; role: string }[] = await db('organization_members')
        .where({ organization_id: organizationId })
        .select('user_id', 'role');
      const groups: { user_id: string; group_id: string }[] = await db('group_members')
        .join('groups', 'groups.id', 'group_members.group_id')
        .where('groups.organization_id', organizationId)
        .select('group_members.user_id', 'group_members.group_id');
      const byUser = new Map(
        rows.map((r) => [
          r.user_id,
          { userId: r.user_id, admin: r.role === 'organization_admin', groups: new Set<string>() },
        ]),
      );
      for (const g of groups) byUser.get(g.user_id)?.groups.add(g.group_id);
      return [...byUser.values()];
    })();
    members.set(organizationId, { at: Date.now(), list });
    list.catch(() => members.delete(organizationId));
    return list;
  }

  async function tell(run: Run, action: string, organizationId: string) {
    const publisher = deps.realtime();
    if (!publisher) return;
    const connected = (await membersOf(organizationId)).filter(
      (m) => publisher.connected?.(m.userId) ?? true,
    );
    if (connected.length === 0) return;
    const subject = resources.runs.kind.access(run);
    const users = await existingUsers(db, [subject.owner]);
    const status = run.status ?? {};
    const message = {
      message_title: `Run ${status.phase ?? 'WAITING'}`,
      message_type: 'primary',
      message_text: `${run.spec.name ?? run.metadata.name}: ${action.slice('run.'.length)}`,
      message_data: JSON.stringify({
        action,
        data: {
          uuid: run.spec.session,
          run_uuid: run.metadata.name,
          status: status.phase ?? 'WAITING',
          start: status.startTime ?? null,
          stop: status.stopTime ?? null,
        },
      }),
    };
    for (const m of connected) {
      const access = accessOf(
        { ...m, organizationId, isUser: (o) => !!o && users.has(o), names: users },
        subject,
      );
      if (access.view) publisher.publish(m.userId, { id: nextId--, ...message });
    }
  }

  /** True when this replica won the right to announce the run's end. */
  async function claim(run: Run, mark: string): Promise<boolean> {
    let current: Run | undefined = run;
    for (let attempt = 0; attempt < 5 && current; attempt++) {
      if (current.metadata.annotations?.[NOTIFIED_ANNOTATION] === mark) return false;
      if (current.status?.phase !== run.status?.phase) return false;
      try {
        await resources.runs.replace(
          {
            ...current,
            metadata: {
              ...current.metadata,
              annotations: { ...current.metadata.annotations, [NOTIFIED_ANNOTATION]: mark },
            },
          },
          '',
        );
        return true;
      } catch (error) {
        if (!isConflict(error) && !(error instanceof DomainError && error.kind === 'conflict')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
        current = resources.runs.get(run.metadata.namespace!, run.metadata.name!);
      }
    }
    return false;
  }

  async function announce(run: Run, organizationId: string) {
    const phase = run.status?.phase ?? '';
    const ended = ENDED[phase];
    if (!ended) return;
    const mark = `${phase} ${run.status?.stopTime ?? ''}`;
    if (!(await claim(run, mark))) return;
    const session = resources.sessions.get(run.metadata.namespace!, run.spec.session);
    const sessionName = session?.spec.name ?? run.spec.name ?? run.spec.session;
    const text = `The run ${run.metadata.name} of session ${sessionName} ${ended.verb}.`;
    const link = `${deps.publicUrl}/dashboard/session/${run.spec.session}/${run.metadata.name}`;
    const recipients = new Set<string>();
    const owner = session?.spec.owner ?? run.spec.owner;
    if (owner) recipients.add(owner);
    const notify = session?.spec.notifications;
    const group = session?.spec.group ?? run.spec.group;
    if (notify?.notifyGroup && group)
      for (const id of await db('group_members').where({ group_id: group, is_admin: true }).pluck('user_id'))
        recipients.add(id as string);
    if (notify?.notifyOrganization)
      for (const id of await db('organization_members')
        .where({ organization_id: organizationId, role: 'organization_admin' })
        .pluck('user_id'))
        recipients.add(id as string);
    const known = await existingUsers(db, recipients);
    for (const userId of recipients) {
      if (!known.has(userId)) continue;
      await deps.notifications.notify({
        userId,
        organizationId,
        title: ended.title,
        type: ended.type,
        text,
        data: { action: `run.${phase.toLowerCase()}`, uuid: run.spec.session, run_uuid: run.metadata.name! },
        mail: true,
      });
    }
    for (const to of notify?.emails ?? [])
      await deps.mailer.send({ to, subject: `${ended.title}: ${sessionName}`, text: `${text}\n${link}\n` });
  }

  async function handle(type: EventType, run: Run) {
    const key = keyOf(run);
    const before = phases.get(key);
    const after = type === 'delete' ? undefined : run.status?.phase;
    if (type === 'delete') phases.delete(key);
    else phases.set(key, after);
    const action = runAction(type, before, after);
    if (!action) return;
    const organizationId = await resources.organizationOf(run);
    if (!organizationId) return;
    await tell(run, action, organizationId);
    if (type !== 'delete' && after && FINAL.has(after)) await announce(run, organizationId);
  }

  return resources.onRunEvent((type, run) => {
    queue = queue
      .then(() => handle(type, run))
      .catch((error: unknown) =>
        logger.error({ err: error, run: run.metadata.name }, 'announcing a run change failed'),
      );
  });
}
