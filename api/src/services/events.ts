import type { Knex } from 'knex';
import type { Caller } from './callers.js';
import { roleIn } from './callers.js';
import { readCachesFor } from './read-caches.js';
import type { Row } from './tenancy-shared.js';

/** Spec 1 §3 / spec 3 §3 audit event kinds. */
export type EventKind =
  'users' | 'groups' | 'organizations' | 'clusters' | 'sandboxes' | 'workflows' | 'sessions' | 'runs';

export interface AuditEvent {
  kind: EventKind;
  action: string; // create, clone, update, rename, variables, visibility, remove, ...
  subject: string;
  organizationId: string | null;
  data?: unknown[];
}

export const EVENTS_PAGE_SIZE = 30;

export function createEventService(db: Knex) {
  return {
    async record(
      actor: Pick<Caller, 'userId' | 'name'> | null,
      event: AuditEvent,
      trx: Knex = db,
    ): Promise<void> {
      await trx('events').insert({
        organization_id: event.organizationId,
        user_id: actor?.userId ?? null,
        user_name: actor?.name ?? '',
        kind: event.kind,
        action: event.action,
        subject: event.subject,
        data: JSON.stringify(event.data ?? []),
      });
      readCachesFor(db).wrote(trx, 'events');
    },

    /**
     * Newest first, page n of 30 (pages start at 0). The super admin sees everything;
     * an organization admin the events of their current organization; everyone else
     * their own actions in it.
     */
    async page(caller: Caller, page: number) {
      // Who sees what: everything, an organization's log, or one person's actions in it.
      const organizationId = caller.isSuperAdmin
        ? null
        : (caller.currentOrganizationId ?? '00000000-0000-0000-0000-000000000000');
      const onlyUserId =
        caller.isSuperAdmin || roleIn(caller, caller.currentOrganizationId) === 'organization_admin'
          ? null
          : caller.userId;
      // Cached briefly per scope and page; any write to events or organizations empties it.
      return readCachesFor(db).events.get(`${organizationId ?? '*'}:${onlyUserId ?? '*'}:${page}`, () =>
        loadPage(organizationId, onlyUserId, page),
      ) as Promise<ReturnType<typeof toEvent>[]>;
    },
  };

  async function loadPage(organizationId: string | null, onlyUserId: string | null, page: number) {
    const query = db('events')
      .leftJoin('organizations', 'organizations.id', 'events.organization_id')
      .orderBy('events.id', 'desc')
      .limit(EVENTS_PAGE_SIZE)
      .offset(page * EVENTS_PAGE_SIZE)
      .select(
        'events.id',
        'events.created_at',
        'events.kind',
        'events.action',
        'events.subject',
        'events.data',
        'events.user_name',
        'organizations.name as organization_name',
      );
    if (organizationId !== null) query.where('events.organization_id', organizationId);
    if (onlyUserId !== null) query.where('events.user_id', onlyUserId);
    return (await query).map(toEvent);
  }
}

function toEvent(row: Row) {
  return {
    id: Number(row.id),
    timestamp: new Date(row.created_at as string | Date).toISOString(),
    organization_name: row.organization_name ?? '',
    kind: row.kind,
    action: row.action,
    subject: row.subject,
    data: row.data,
    user_name: row.user_name,
  };
}

export type EventService = ReturnType<typeof createEventService>;
