import { CampaignReader, Horizon } from '@app/campaign';
import { LayersReader, MemoryReader } from '@app/memory';
import { servedWordings } from '@app/recall';
import { QueryNode, queryWords, recallQuery, SearchIndex } from '@app/search';
import { BuiltSection, ContextSection, SectionInput } from '../context.types';
import { clockOf } from '../story-dates';
import { glossaryCandidates, memoryCandidates } from './recall/entries';
import { RecalledMessages } from './recall/messages';
import { byScore, Candidate, rankMessages } from './recall/rank';
import { withoutFrame, withStemPrefixes, wordsOf } from './recall/terms';

export { queryDates, QueryDate } from './recall/dates';
export { Candidate, rankMessages } from './recall/rank';
export { numberVariants, withoutFrame, withStemPrefixes } from './recall/terms';

export interface RecallOptions {
  /** RECALL_LIMIT: the section's own entries (DESIGN §8). */
  limit: number;
  /** Ranked entries offered past `limit`, to fill room the hot rounds leave (the composer decides, by budget). */
  pool: number;
}

/** Extra ranked hits offered past RECALL_LIMIT, room permitting (tuned on LoCoMo, docs/layered-context.md). */
export const DEFAULT_RECALL_POOL = 100;

const frameless = (q: QueryNode | null, text: string) => q && withoutFrame(q, text);

const MEMORY_SECTIONS = new Set(['location', 'npc', 'world']);

/**
 * Recalled (DESIGN §8): with `query=`, the older messages, memories and glossary entries the search index ranks
 * highest for it that the context does not already hold, filtered by what the viewer witnessed, best first, each with
 * its round/date. Built after the other sections; hits Recent Messages holds are left out by the composer (and come
 * back if the budget takes them from Recent). Without a search index the section is absent.
 *
 * The parts: recall/terms (the query's words as the index looks them up), recall/dates (dates a query names),
 * recall/messages (message hits, their replies, a named day's lines), recall/rank (speaker, date and cluster rules),
 * recall/entries (how a message, memory or glossary hit reads).
 */
export class RecallSection implements ContextSection {
  readonly key = 'recall' as const;
  readonly title = 'Recalled';
  readonly after = true;

  constructor(
    private readonly index: SearchIndex | null,
    private readonly campaigns: CampaignReader,
    private readonly memories: MemoryReader,
    private readonly layers: LayersReader,
    private readonly options: RecallOptions,
  ) {}

  async build(input: SectionInput): Promise<BuiltSection | null> {
    if (!this.index) return null;
    const text = input.request.query;
    const words = text === undefined ? null : frameless(recallQuery(text), text);
    const want = this.options.limit + this.options.pool;
    if (!words || want === 0) return { key: this.key, title: this.title, entries: [] };
    const run = this.runOf(input);
    const candidates = await this.candidates(input, this.index, run, words);
    candidates.sort(byScore);
    // Hot messages stay candidates: if Recent Messages loses one to the budget, the composer brings its hit back here.
    const picked = await run.reads.withReplies(candidates.slice(0, want + run.hot));
    const entries = picked.map((c, i) => ({ ...c.entry, rank: i + 1 }));
    return { key: this.key, title: this.title, entries, limit: this.options.limit, timeline: true };
  }

  /** What one recall reads with: the context's other sections and the viewer. */
  private runOf({ request, snapshot, audience, others = [] }: SectionInput): Run {
    const held = new Set(others.filter((s) => MEMORY_SECTIONS.has(s.key)).flatMap((s) => s.entries.map((e) => e.ref)));
    const glossary = others.filter((s) => s.key === 'glossary');
    const heldTerms = new Set(glossary.flatMap((s) => s.entries.map((e) => e.ref.toLowerCase())));
    const hot = others.find((s) => s.key === 'recent')?.entries.length ?? 0;
    const witness = audience?.witness ?? null;
    const dm = audience?.dm ?? false;
    const cid = request.campaignId;
    const at = snapshot.horizon;
    const reads = new RecalledMessages(this.campaigns, cid, at, witness, dm, snapshot.state, held);
    return { cid, at, witness, dm, held, heldTerms, hot, reads };
  }

  /** Every candidate — messages, their replies, memories, glossary entries — scored, unsorted. */
  private async candidates(input: SectionInput, index: SearchIndex, run: Run, words: QueryNode): Promise<Candidate[]> {
    const { request, snapshot } = input;
    const query = withStemPrefixes(words);
    const { cid, at, witness, held } = run;
    // Hits the viewer may not see or the context already holds are skipped, so ask for more than we keep.
    const ask = Math.min(500, 3 * (this.options.limit + this.options.pool) + held.size + run.hot);
    const [messageHits, memoryHits] = await Promise.all([
      index.search(cid, query, { in: 'messages', limit: ask, at }),
      // §10: only the rows of the wordings served at the horizon (not an old wording, nor a deleted memory's).
      index
        .search(cid, query, { in: 'memories', limit: ask, at })
        .then((hits) => servedWordings(this.memories, cid, hits, at)),
    ]);
    const found = await run.reads.hits(messageHits);
    const dated = await run.reads.dated(request.query ?? '', found);
    const terms = queryWords(words);
    const messages = rankMessages([...found, ...dated], terms, request.query ?? '');
    const replies = await run.reads.statementReplies(messages);
    const scope = { campaigns: this.campaigns, memories: this.memories, campaignId: cid, at, witness };
    const memoryRows = memoryHits.filter((h) => !held.has(String(h.ref)));
    const memories = await memoryCandidates({ ...scope, clock: clockOf(snapshot.state) }, memoryRows);
    const options = { viewer: witness, publicOnly: !run.dm, at };
    const glossary = await this.layers.glossary(cid, snapshot.state.glossary ?? {}, options);
    return [
      ...messages,
      ...replies,
      ...memories,
      ...glossaryCandidates(glossary, run.heldTerms, wordsOf(terms.join(' '))),
    ];
  }
}

/** One recall's reads and what the context already holds. */
interface Run {
  cid: string;
  at: Horizon;
  witness: string | null;
  dm: boolean;
  /** Refs the memory sections hold. */
  held: Set<string>;
  /** Terms the Glossary section holds (lower case). */
  heldTerms: Set<string>;
  /** Recent Messages' entries (their hits stay candidates). */
  hot: number;
  reads: RecalledMessages;
}
