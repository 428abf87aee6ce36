import { sql } from './raw-sql';
import { DomainError } from '@app/common';
import { EntityManager } from 'typeorm';
import { IdempotencyRecord } from './idempotency.entity';

/** An Idempotency-Key as a write carries it: scoped (campaign or route, and the API key) and bound to one request. */
export interface IdempotencyKey {
  scope: string;
  key: string;
  requestHash: string;
}

/**
 * The one place that reads and writes `idempotency_keys`. Both calls take the write's own transaction:
 * the answer is recorded with the append it answers, so a key never names a write that was rolled back.
 */
export class IdempotencyStore {
  /**
   * The stored answer to this key, or `undefined` when the key is new. The same key with another request
   * is 422 IDEMPOTENCY_KEY_REUSED.
   */
  async replay<B>(m: EntityManager, idem: IdempotencyKey): Promise<B | undefined> {
    const prior = await m.getRepository(IdempotencyRecord).findOneBy({ scope: idem.scope, key: idem.key });
    if (!prior) return undefined;
    if (prior.requestHash !== idem.requestHash) {
      throw new DomainError(
        'unprocessable',
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used with a different request',
      );
    }
    return JSON.parse(prior.body) as B;
  }

  /** Records the first answer; a concurrent writer of the same key fails on the primary key (`isUniqueViolation`). */
  async record(m: EntityManager, idem: IdempotencyKey, status: number, body: unknown, at: string): Promise<void> {
    await m.getRepository(IdempotencyRecord).insert({
      scope: idem.scope,
      key: idem.key,
      requestHash: idem.requestHash,
      status,
      body: JSON.stringify(body),
      createdAt: at,
    });
  }

  /**
   * Every key of a campaign (DESIGN §10 delete): scope `<cid>` or `<cid>@<api key>`. No LIKE: ids contain `_`.
   */
  async removeCampaign(m: EntityManager, campaignId: string): Promise<void> {
    await sql(m, 'DELETE FROM "idempotency_keys" WHERE "scope" = ? OR substr("scope", 1, ?) = ?', [
      campaignId,
      campaignId.length + 1,
      `${campaignId}@`,
    ]);
  }
}
