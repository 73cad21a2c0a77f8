import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventService } from '../services/events.js';
import type { RealtimePublisher, RealtimeMessage } from '../services/notifications.js';
import { accessOf, existingUsers } from './access.js';
import type { Change } from './store.js';
import type { KubeObject, ResourceKind } from './types.js';

const MEMBERS_TTL_MS = 5_000;

interface Member {
  userId: string;
  admin: boolean;
  groups: Set<string>;
}

/**
 * Turns every change the watch sees into an audit event — unless it is the API's own write,
 * which the API recorded with its actor — and into a realtime message to the members of the
 * organization who can see the object and have a socket open (not to the one who made it).
 * Messages are not stored: every API process watches, and each tells its own sockets.
 */
export function createChangeFeed(deps: {
  db: Knex;
  logger: Logger;
  events: EventService;
  realtime: () => RealtimePublisher | undefined;
  organizationOf(object: KubeObject): Promise<string | null>;
}) {
  const members = new Map<string, { at: number; list: Promise<Member[]> }>();
  let queue = Promise.resolve();
  // Ids of messages nobody stores; negative so they never meet a stored notification's id.
  let nextId = -1;

  function membersOf(organizationId: string): Promise<Member[]> {
    const hit = members.get(organizationId);
    if (hit && Date.now() - hit.at < MEMBERS_TTL_MS) return hit.list;
    const list = loadMembers(organizationId);
    members.set(organizationId, { at: Date.now(), list });
    list.catch(() => members.delete(organizationId));
    return list;
  }

  async function loadMembers(organizationId: string): Promise<Member[]> {
    const rows: { user_id: string; role: string }[] = await deps
      .db('organization_members')
      .where({ organization_id: organizationId })
      .select('user_id', 'role');
    const groupRows: { user_id: string; group_id: string }[] = await deps
      .db('group_members')
      .join('groups', 'groups.id', 'group_members.group_id')
      .where('groups.organization_id', organizationId)
      .select('group_members.user_id', 'group_members.group_id');
    const byUser = new Map<string, Member>(
      rows.map((r) => [
        r.user_id,
        { userId: r.user_id, admin: r.role === 'organization_admin', groups: new Set<string>() },
      ]),
    );
    for (const g of groupRows) byUser.get(g.user_id)?.groups.add(g.group_id);
    return [...byUser.values()];
  }

  async function handleNow<O extends KubeObject>(kind: ResourceKind<O>, change: Change<O>) {
    const { object, action, actorId } = change;
    const organizationId = await deps.organizationOf(object);
    if (!organizationId) return; // a namespace of no organization: nobody's object
    const name = kind.displayName(object);
    if (actorId === null)
      await deps.events.record(null, {
        kind: kind.events,
        action,
        subject: name,
        organizationId,
        data: [{ id: object.metadata.name, namespace: object.metadata.namespace, source: 'kubernetes' }],
      });
    const publisher = deps.realtime();
    if (!publisher) return;
    const connected = (await membersOf(organizationId)).filter(
      (m) => m.userId !== actorId && (publisher.connected?.(m.userId) ?? true),
    );
    if (connected.length === 0) return;
    const subject = kind.access(object);
    const users = await existingUsers(deps.db, [subject.owner]);
    const message: Omit<RealtimeMessage, 'id'> = {
      message_title: `${kind.title} ${action}`,
      message_type: 'primary',
      message_text: `${kind.title} ${name}: ${action}`,
      message_data: JSON.stringify({
        action: `${kind.events}.${action}`,
        data: { uuid: object.metadata.name },
      }),
    };
    for (const member of connected) {
      const access = accessOf(
        { ...member, organizationId, isUser: (owner) => !!owner && users.has(owner), names: users },
        subject,
      );
      if (access.view) publisher.publish(member.userId, { id: nextId--, ...message });
    }
  }

  return {
    /** Handled one after the other, so the audit log keeps the watch's order. */
    handle<O extends KubeObject>(kind: ResourceKind<O>, change: Change<O>): void {
      queue = queue
        .then(() => handleNow(kind, change))
        .catch((error: unknown) =>
          deps.logger.error({ err: error, kind: kind.title }, 'recording a resource change failed'),
        );
    },
  };
}
