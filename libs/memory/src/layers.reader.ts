import { glossaryKey, GlossaryOverride, MessageRecord, MessageWitnessRecord } from '@app/campaign';
import { Database } from '@app/event-store';
import { GlossaryTermRecord, RollingSummaryRecord } from './layers.entity';

export interface GlossaryEntry {
  term: string;
  definition: string;
  /** The message that coined it; null for a term only the DM defined. */
  coinedMessageIndex: number | null;
  /** Set by the DM: the worker never changes it. */
  locked: boolean;
  hidden: boolean;
  createdAt: string | null;
}

export interface RollingSummaryView {
  summary: string;
  sinceMessageIndex: number;
  throughMessageIndex: number;
  triggerVersion: number;
  createdAt: string;
  memoryVersion: number;
}

/** Read side of the §8 layers the worker writes: glossary and "Previously" summaries. */
export class LayersReader {
  constructor(private readonly db: Database) {}

  /**
   * The glossary: coined terms merged with the DM's overrides, alphabetical. With `viewer`, only terms coined in
   * messages it witnessed (and DM-defined terms no message coined); with `publicOnly`, none coined in dm-only notes.
   * Hidden terms only with `includeHidden`.
   */
  async glossary(
    campaignId: string,
    overrides: Record<string, GlossaryOverride> = {},
    o: { viewer?: string | null; publicOnly?: boolean; includeHidden?: boolean } = {},
  ): Promise<GlossaryEntry[]> {
    const rows = await this.db.read((m) => {
      const qb = m.getRepository(GlossaryTermRecord).createQueryBuilder('g').where('g.campaignId = :campaignId', { campaignId });
      if (o.viewer) {
        qb.innerJoin(MessageWitnessRecord, 'w', 'w.campaignId = g.campaignId AND w.index = g.coinedMessageIndex AND w.viewerId = :viewer', { viewer: o.viewer });
      } else if (o.publicOnly) {
        qb.innerJoin(MessageRecord, 'msg', "msg.campaignId = g.campaignId AND msg.index = g.coinedMessageIndex AND msg.visibility <> 'dm'");
      }
      return qb.getMany();
    });
    const coined = await this.coinedKeys(campaignId, o.viewer || o.publicOnly ? Object.keys(overrides) : []);
    const byKey = new Map<string, GlossaryEntry>();
    for (const r of rows) {
      byKey.set(r.termKey, { term: r.term, definition: r.definition, coinedMessageIndex: Number(r.coinedMessageIndex), locked: false, hidden: false, createdAt: r.createdAt });
    }
    for (const [key, ov] of Object.entries(overrides)) {
      const auto = byKey.get(key);
      // A DM definition of a term some unseen message coined stays as secret as that message.
      if (!auto && coined.has(key)) continue;
      if (!auto && ov.definition === null) continue;
      byKey.set(key, {
        term: auto?.term ?? ov.term,
        definition: ov.definition ?? auto!.definition,
        coinedMessageIndex: auto?.coinedMessageIndex ?? null,
        locked: ov.definition !== null,
        hidden: ov.hidden,
        createdAt: auto?.createdAt ?? null,
      });
    }
    return [...byKey.entries()]
      .filter(([, e]) => o.includeHidden || !e.hidden)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, e]) => e);
  }

  /** Every term the glossary holds (lower-cased), hidden or not: the worker never coins these again. */
  async termKeys(campaignId: string): Promise<Set<string>> {
    const rows = await this.db.read((m) => m.getRepository(GlossaryTermRecord).createQueryBuilder('g').select('g.termKey', 'k').where('g.campaignId = :campaignId', { campaignId }).getRawMany<{ k: string }>());
    return new Set(rows.map((r) => r.k));
  }

  async hasTerm(campaignId: string, term: string): Promise<boolean> {
    return (await this.db.read((m) => m.getRepository(GlossaryTermRecord).countBy({ campaignId, termKey: glossaryKey(term) }))) > 0;
  }

  /** The newest "Previously" of a viewer ('*' = everyone's, else `player:<id>`). */
  async latestSummary(campaignId: string, viewerKey: string): Promise<RollingSummaryView | null> {
    const row = await this.db.read((m) =>
      m.getRepository(RollingSummaryRecord).createQueryBuilder('s').where('s.campaignId = :campaignId AND s.viewerKey = :viewerKey', { campaignId, viewerKey }).orderBy('s.memoryVersion', 'DESC').limit(1).getOne(),
    );
    if (!row) return null;
    return {
      summary: row.summary,
      sinceMessageIndex: Number(row.sinceMessageIndex),
      throughMessageIndex: Number(row.throughMessageIndex),
      triggerVersion: Number(row.triggerVersion),
      createdAt: row.createdAt,
      memoryVersion: Number(row.memoryVersion),
    };
  }

  private async coinedKeys(campaignId: string, keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.read((m) =>
      m.getRepository(GlossaryTermRecord).createQueryBuilder('g').select('g.termKey', 'k').where('g.campaignId = :campaignId AND g.termKey IN (:...keys)', { campaignId, keys: keys.map(glossaryKey) }).getRawMany<{ k: string }>(),
    );
    return new Set(rows.map((r) => r.k));
  }
}
