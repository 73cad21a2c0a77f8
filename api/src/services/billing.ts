import type { Knex } from 'knex';
import type { Role } from '../authorization.js';
import { dollarsOfNano } from './billing-prices.js';

const ADMIN_TYPES = new Set<Role | null>(['admin', 'organization_admin']);
/** The record's columns, 64-bit integers as text (exact whatever the driver does with int8). */
const COLUMNS = [
  'id::text AS id',
  'amount_nano::text AS amount_nano',
  'duration_ns::text AS duration_ns',
  ...['organization_id', 'paid', 'sandbox_id', 'sandbox_name', 'session', 'session_name', 'run_name'],
  ...['status', 'stopped_at', 'user_id', 'group_id', 'machine_cpu', 'machine_memory'],
];

/** Nano-dollars as an exact decimal dollar amount (9 decimals). */
export function nanoToDecimal(nano: string): string {
  const n = BigInt(nano);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  return `${sign}${abs / 1_000_000_000n}.${(abs % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** A billing record (spec 2 §3): one step execution, priced by spec 2 §9. */
export interface BillingRecord {
  _id: string;
  /** Dollars, to the nano-dollar. */
  amount: number;
  /** The exact amount in nano-dollars (a decimal integer). */
  amount_nano: string;
  execution_time: number;
  organization: string;
  paid: boolean;
  sandbox_id: string;
  sandbox_name: string;
  session: string;
  session_name: string;
  run: string;
  status: string;
  timestamp: string;
  user_id: string | null;
  group: string | null;
  machine: { cpu: number; memory: number };
}

export interface SessionTotal {
  session: string;
  session_name: string;
  records: number;
  execution_time: number;
  /** Dollars to the cent (the sum of the exact amounts, rounded once). */
  amount: number;
  amount_nano: string;
}

export interface BillingPage {
  records: BillingRecord[];
  page: number;
  page_size: number;
  total: number;
  sessions: SessionTotal[];
  amount: number;
  amount_nano: string;
}

/** Whose records a caller reads: administrator-type roles the organization's, others their own. */
export interface BillingScope {
  userId: string;
  organizationId: string;
  role: Role | null;
}

export function createBillingService(deps: { db: Knex }) {
  const { db } = deps;

  const scoped = (scope: BillingScope) => {
    const q = db('step_records').where('organization_id', scope.organizationId);
    return ADMIN_TYPES.has(scope.role) ? q : q.where('user_id', scope.userId);
  };

  const recordOf = (r: Record<string, unknown>): BillingRecord => ({
    _id: String(r.id),
    amount: Number(r.amount_nano) / 1e9,
    amount_nano: String(r.amount_nano),
    execution_time: Number(r.duration_ns),
    organization: r.organization_id as string,
    paid: r.paid as boolean,
    sandbox_id: r.sandbox_id as string,
    sandbox_name: r.sandbox_name as string,
    session: r.session as string,
    session_name: r.session_name as string,
    run: r.run_name as string,
    status: r.status as string,
    timestamp: new Date(r.stopped_at as string).toISOString(),
    user_id: (r.user_id as string | null) ?? null,
    group: (r.group_id as string | null) ?? null,
    machine: { cpu: Number(r.machine_cpu), memory: Number(r.machine_memory) },
  });

  return {
    /** GET /billing: a page of records, newest first, with per-session and overall totals. */
    async page(scope: BillingScope, page: number, pageSize: number): Promise<BillingPage> {
      const rows = await scoped(scope)
        .orderBy([
          { column: 'stopped_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .offset(page * pageSize)
        .limit(pageSize)
        .select(COLUMNS.map((c) => db.raw(c)));
      const sessions: Record<string, unknown>[] = await scoped(scope)
        .groupBy('session', 'session_name')
        .orderBy([
          { column: 'amount_sum', order: 'desc' },
          { column: 'session', order: 'asc' },
        ])
        .select(
          'session',
          'session_name',
          db.raw('count(*)::int AS records'),
          db.raw('sum(duration_ns)::text AS time_sum'),
          db.raw('sum(amount_nano) AS amount_sum'),
          db.raw('sum(amount_nano)::text AS amount_text'),
        );
      const totals = sessions.map((s) => ({
        session: s.session as string,
        session_name: s.session_name as string,
        records: Number(s.records),
        execution_time: Number(s.time_sum),
        amount: dollarsOfNano(s.amount_text as string),
        amount_nano: s.amount_text as string,
      }));
      const all = totals.reduce((sum, s) => sum + BigInt(s.amount_nano), 0n);
      return {
        records: rows.map(recordOf),
        page,
        page_size: pageSize,
        total: totals.reduce((n, s) => n + s.records, 0),
        sessions: totals,
        amount: dollarsOfNano(all),
        amount_nano: all.toString(),
      };
    },

    /** GET /billing/csv: every record of the scope, newest first, as CSV rows. */
    async csv(scope: BillingScope): Promise<string> {
      const rows = await scoped(scope)
        .orderBy([
          { column: 'stopped_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .select(COLUMNS.map((c) => db.raw(c)));
      const header = [
        'id',
        'timestamp',
        'session',
        'session_name',
        'run',
        'sandbox_name',
        'status',
        'execution_time_ns',
        'machine_cpu',
        'machine_memory',
        'amount_usd',
        'amount_nano',
        'paid',
      ];
      const cell = (value: unknown) => {
        const text = String(value ?? '');
        // Quote anything a spreadsheet could misread, and neutralise formula prefixes.
        const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
        return /[",\n\r']/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
      };
      const lines = rows.map((r: Record<string, unknown>) => {
        const rec = recordOf(r);
        return [
          rec._id,
          rec.timestamp,
          rec.session,
          rec.session_name,
          rec.run,
          rec.sandbox_name,
          rec.status,
          rec.execution_time,
          rec.machine.cpu,
          rec.machine.memory,
          nanoToDecimal(rec.amount_nano),
          rec.amount_nano,
          rec.paid,
        ]
          .map(cell)
          .join(',');
      });
      return `${[header.join(','), ...lines].join('\r\n')}\r\n`;
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
