import {
  CampaignReader,
  glossaryKey,
  GlossaryOverride,
  Horizon,
  memoryBound,
  PUBLIC_WITNESS,
  UNBOUNDED_MEMORY_VERSION,
} from '@app/campaign';
import { Database, sql } from '@app/database';
import { cutOutsideMarks, splitSentences } from '@app/summarizer';
import { capDefinition, MAX_DEFINITION_WORDS } from './glossary/known-terms';
import { GlossaryTermRecord, RollingSummaryRecord } from './layers.entity';
import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

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

/** What bounds a layers read (DESIGN §10): the horizon's memory version and, for "known by use", its messages. */
export type LayersHorizon = Pick<Horizon, 'memoryVersion' | 'messageCount' | 'version'>;

/** Read side of the §8 layers the worker writes: glossary and "Previously" summaries. */
export class LayersReader {
  constructor(
    private readonly db: Database,
    /** The messages a viewer witnessed (§8 `seenBy`): campaign owns them. */
    private readonly campaigns: Pick<CampaignReader, 'witnessed' | 'contentsContaining'>,
  ) {}

  /**
   * The glossary: coined terms merged with the DM's overrides, alphabetical. With `viewer` (a witness key, or
   * PUBLIC_WITNESS for the public view), only terms used in a message it witnessed (§8: any use, whole word,
   * case-insensitive, not only the coining one) and DM-defined terms no message coined; `publicOnly` without a
   * viewer is the public view. Hidden terms only with `includeHidden`.
   */
  async glossary(
    campaignId: string,
    overrides: Record<string, GlossaryOverride> = {},
    o: { viewer?: string | null; publicOnly?: boolean; includeHidden?: boolean; at?: LayersHorizon } = {},
  ): Promise<GlossaryEntry[]> {
    const viewer = o.viewer || (o.publicOnly ? PUBLIC_WITNESS : null);
    const upTo = memoryBound({ memoryVersion: o.at?.memoryVersion ?? UNBOUNDED_MEMORY_VERSION });
    const all = firstLiveCoinings(
      await this.db.read((m) =>
        liveAt(
          m
            .getRepository(GlossaryTermRecord)
            .createQueryBuilder('g')
            .where('g.campaignId = :campaignId AND g.memoryVersion <= :upTo', { campaignId, upTo }),
          o.at,
        )
          .orderBy('g.memoryVersion', 'ASC')
          .getMany(),
      ),
    );
    const rows = viewer ? await this.knownTo(campaignId, viewer, all, o.at) : all;
    const coined = await this.coinedKeys(campaignId, viewer ? Object.keys(overrides) : [], upTo, o.at);
    const byKey = new Map<string, GlossaryEntry>();
    for (const r of rows) {
      byKey.set(r.termKey, {
        term: r.term,
        definition: r.definition,
        coinedMessageIndex: Number(r.coinedMessageIndex),
        locked: false,
        hidden: false,
        createdAt: r.createdAt,
      });
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

  /**
   * Every term the glossary holds (lower-cased), hidden or not: the worker never coins these again. A withheld or
   * withdrawn coining (§10, its message retracted) holds nothing: a later message may coin the term again.
   */
  async termKeys(campaignId: string): Promise<Set<string>> {
    // Plain SQL (liveAt's condition without a horizon): the memory worker asks once per drain (issue 33).
    const text =
      'SELECT "term_key" AS "k" FROM "glossary_terms" WHERE "campaign_id" = ? AND "withheld_version" IS NULL ' +
      'AND "withdrawn_version" IS NULL';
    const { rows } = await this.db.read((m) => sql<{ k: string }>(m, text, [campaignId]));
    return new Set(rows.map((r) => r.k));
  }

  async hasTerm(campaignId: string, term: string): Promise<boolean> {
    return (
      (await this.db.read((m) =>
        m.getRepository(GlossaryTermRecord).countBy({ campaignId, termKey: glossaryKey(term) }),
      )) > 0
    );
  }

  /**
   * The newest "Previously" of a viewer ('*' = everyone's, else `player:<id>`) at the horizon (DESIGN §10): the
   * primary key walked backwards from its memory version.
   */
  async latestSummary(campaignId: string, viewerKey: string, at?: LayersHorizon): Promise<RollingSummaryView | null> {
    const upTo = memoryBound({ memoryVersion: at?.memoryVersion ?? UNBOUNDED_MEMORY_VERSION });
    const row = await this.db.read((m) =>
      m
        .getRepository(RollingSummaryRecord)
        .createQueryBuilder('s')
        .where('s.campaignId = :campaignId AND s.viewerKey = :viewerKey', { campaignId, viewerKey })
        .andWhere('s.memoryVersion <= :upTo', { upTo })
        // §10: a summary built from a message retracted by then is withheld until its revision (a newer row).
        .andWhere(
          at ? '(s.withheldVersion IS NULL OR s.withheldVersion > :asOfVersion)' : 's.withheldVersion IS NULL',
          at ? { asOfVersion: at.version } : {},
        )
        .orderBy('s.memoryVersion', 'DESC')
        .limit(1)
        .getOne(),
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

  /** The terms `viewer` knows: coined in a message it witnessed, or used (whole word) in one. */
  private async knownTo(campaignId: string, viewer: string, terms: GlossaryTermRecord[], at?: LayersHorizon) {
    if (terms.length === 0) return terms;
    const coining = terms.map((t) => Number(t.coinedMessageIndex));
    const witnessed = await this.campaigns.witnessed(campaignId, viewer, coining, at);
    const known = new Set(terms.filter((t) => witnessed.has(Number(t.coinedMessageIndex))).map((t) => t.termKey));
    const rest = terms.filter((t) => !known.has(t.termKey));
    const usedOnly = new Map<string, GlossaryTermRecord>();
    for (let i = 0; i < rest.length; i += TERM_BATCH) {
      const batch = rest.slice(i, i + TERM_BATCH);
      // The database narrows the messages down by substring; the whole-word test is made here.
      const contents = await this.campaigns.contentsContaining(
        campaignId,
        batch.map((t) => t.termKey),
        viewer,
        at,
      );
      for (const t of batch) {
        const re = wholeWord(t.termKey);
        const use = contents.find((c) => re.test(c));
        // The stored definition came from the coining message, which this viewer never saw: defined by what it did see.
        if (use) usedOnly.set(t.termKey, { ...t, definition: definitionFrom(use, re) });
      }
    }
    return terms.flatMap((t) => (known.has(t.termKey) ? [t] : (usedOnly.get(t.termKey) ?? [])));
  }

  private async coinedKeys(
    campaignId: string,
    keys: string[],
    upTo: number,
    at: LayersHorizon | undefined,
  ): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.read((m) =>
      m
        .getRepository(GlossaryTermRecord)
        .createQueryBuilder('g')
        .select('g.termKey', 'k')
        .where('g.campaignId = :campaignId AND g.termKey IN (:...keys)', { campaignId, keys: keys.map(glossaryKey) })
        .andWhere('g.memoryVersion <= :upTo', { upTo })
        .andWhere('(g.withdrawnVersion IS NULL OR g.withdrawnVersion > :asOfVersion)', {
          asOfVersion: memoryBound({ memoryVersion: at?.version ?? UNBOUNDED_MEMORY_VERSION }),
        })
        .getRawMany<{ k: string }>(),
    );
    return new Set(rows.map((r) => r.k));
  }
}

const TERM_BATCH = 50;

/**
 * §10: coinings live at the horizon — not withheld (coining message retracted, revision pending) or withdrawn by its
 * version; without a horizon, those live now.
 */
function liveAt<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, at: LayersHorizon | undefined) {
  if (!at) return qb.andWhere('g.withheldVersion IS NULL AND g.withdrawnVersion IS NULL');
  return qb.andWhere(
    '(g.withheldVersion IS NULL OR g.withheldVersion > :asOfVersion) AND ' +
      '(g.withdrawnVersion IS NULL OR g.withdrawnVersion > :asOfVersion)',
    { asOfVersion: at.version },
  );
}

/** One row per term: the first live coining wins (rows come oldest first). */
function firstLiveCoinings(rows: GlossaryTermRecord[]): GlossaryTermRecord[] {
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.termKey) && seen.add(r.termKey));
}

/** As the offline defineTerm does: the first sentence that uses the term, cut to 20 words outside any quotation. */
function definitionFrom(content: string, term: RegExp): string {
  const sentence = splitSentences(content).find((x) => term.test(x)) ?? content;
  return capDefinition(cutOutsideMarks(sentence, MAX_DEFINITION_WORDS) ?? sentence);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const wholeWord = (term: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(term)}(?![\\p{L}\\p{N}_])`, 'iu');
