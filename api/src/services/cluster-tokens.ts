import type { Knex } from 'knex';
import type { EventService } from './events.js';
import { hashToken, newOpaqueToken } from './tokens.js';

/** Agent tokens start with this, so a leaked one is recognisable in logs and secret scanners. */
export const AGENT_TOKEN_PREFIX = 'sfa_';

/**
 * Refused tokens are audited, but a client hammering wrong tokens must not fill the events
 * table: at most this many refusals are recorded per minute (per API process).
 */
const REFUSALS_AUDITED_PER_MINUTE = 60;

export interface AgentIdentity {
  /** The ClusterManager (metadata.name) the token opens. */
  clusterManager: string;
}

/**
 * Cluster-manager agent tokens (spec 3 §2.6): 256 random bits, shown once when issued, stored
 * as their SHA-256 only (table cluster_tokens). The agent process (`sandflow agent`) presents
 * one when it connects; `verifyAgentToken` says which cluster manager it opens.
 */
export function createClusterTokenService(deps: { db: Knex; events: EventService }) {
  const { db, events } = deps;
  let window = { startedAt: 0, audited: 0 };

  async function auditRefusal(reason: string, from: string | undefined) {
    const now = Date.now();
    if (now - window.startedAt >= 60_000) window = { startedAt: now, audited: 0 };
    if (++window.audited > REFUSALS_AUDITED_PER_MINUTE) return;
    await events.record(null, {
      kind: 'clusters',
      action: 'token_refused',
      subject: 'agent token',
      organizationId: null,
      data: [{ reason, ...(from ? { from } : {}) }],
    });
  }

  return {
    /** A new token for a cluster manager; the answer is the only place the token ever appears. */
    async issue(clusterManager: string, createdBy: string | null, trx: Knex = db) {
      const { token: random } = newOpaqueToken();
      const token = `${AGENT_TOKEN_PREFIX}${random}`;
      const [row] = await trx('cluster_tokens')
        .insert({ cluster_manager: clusterManager, token_hash: hashToken(token), created_by: createdBy })
        .returning(['id', 'created_at']);
      return { id: row.id as string, token, clusterManager };
    },

    /**
     * The cluster manager a token opens, or null for a wrong, malformed or revoked token (each
     * refusal is an audit event; `from` — the peer address — goes into it). The caller answers 401.
     */
    async verifyAgentToken(token: string, from?: string): Promise<AgentIdentity | null> {
      if (typeof token !== 'string' || !token.startsWith(AGENT_TOKEN_PREFIX) || token.length > 200) {
        await auditRefusal('malformed', from);
        return null;
      }
      const row = await db('cluster_tokens')
        .where({ token_hash: hashToken(token) })
        .first('id', 'cluster_manager', 'revoked_at');
      if (!row || row.revoked_at) {
        await auditRefusal(row ? 'revoked' : 'unknown', from);
        return null;
      }
      await db('cluster_tokens').where({ id: row.id }).update({ last_used_at: db.fn.now() });
      return { clusterManager: row.cluster_manager as string };
    },

    /** Every token of a cluster manager stops working (it was deleted). */
    async revokeAll(clusterManager: string, trx: Knex = db) {
      await trx('cluster_tokens')
        .where({ cluster_manager: clusterManager })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now() });
    },

    /** The id of the cluster manager's newest live token (PUT /cluster/{id} names it token_id). */
    async currentTokenId(clusterManager: string): Promise<string | null> {
      const row = await db('cluster_tokens')
        .where({ cluster_manager: clusterManager })
        .whereNull('revoked_at')
        .orderBy('created_at', 'desc')
        .first('id');
      return (row?.id as string | undefined) ?? null;
    },
  };
}

export type ClusterTokenService = ReturnType<typeof createClusterTokenService>;
