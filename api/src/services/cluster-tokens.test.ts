import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, destroyTestDatabase } from '../test-support/database.js';
import { AGENT_TOKEN_PREFIX, createClusterTokenService } from './cluster-tokens.js';
import { createEventService } from './events.js';

describe('cluster-manager agent tokens', () => {
  let db: Knex;
  let tokens: ReturnType<typeof createClusterTokenService>;
  const refusals = () =>
    db('events').where({ kind: 'clusters', action: 'token_refused' }).count<{ count: string }[]>();

  beforeAll(async () => {
    db = await createTestDatabase();
    tokens = createClusterTokenService({ db, events: createEventService(db) });
  }, 30_000);
  afterAll(() => destroyTestDatabase(db));

  it('issues a 256-bit token that opens its cluster manager and is stored only hashed', async () => {
    const issued = await tokens.issue('cm-one', null);
    expect(issued.token.startsWith(AGENT_TOKEN_PREFIX)).toBe(true);
    expect(Buffer.from(issued.token.slice(AGENT_TOKEN_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(await tokens.verifyAgentToken(issued.token)).toEqual({ clusterManager: 'cm-one' });
    const stored = JSON.stringify(await db('cluster_tokens').select());
    expect(stored).not.toContain(issued.token.slice(AGENT_TOKEN_PREFIX.length));
    expect(await tokens.currentTokenId('cm-one')).toBe(issued.id);
  });

  it.each([
    ['unknown', `${AGENT_TOKEN_PREFIX}${'A'.repeat(43)}`],
    ['malformed', 'not-a-token'],
    ['empty', ''],
  ])('refuses a %s token and audits the refusal', async (_, token) => {
    const [before] = await refusals();
    expect(await tokens.verifyAgentToken(token, '203.0.113.7')).toBeNull();
    const [after] = await refusals();
    expect(Number(after!.count)).toBe(Number(before!.count) + 1);
  });

  it('refuses every token of a cluster manager once revoked', async () => {
    const first = await tokens.issue('cm-two', null);
    const second = await tokens.issue('cm-two', null);
    await tokens.revokeAll('cm-two');
    expect(await tokens.verifyAgentToken(first.token)).toBeNull();
    expect(await tokens.verifyAgentToken(second.token)).toBeNull();
    expect(await tokens.currentTokenId('cm-two')).toBeNull();
    const last = await db('events').where({ action: 'token_refused' }).orderBy('id', 'desc').first();
    expect(last.data).toEqual([{ reason: 'revoked' }]);
  });
});
