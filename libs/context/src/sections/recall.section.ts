import { CampaignReader, StoredMessage } from '@app/campaign';
import { GlossaryEntry, LayersReader, MemoryReader } from '@app/memory';
import { QueryNode, queryWords, recallQuery, SearchHit, SearchIndex } from '@app/search';
import { BuiltSection, ContextSection, SectionEntry, SectionInput } from '../context.types';
import { oneLine, toDay } from '../format';

export interface RecallOptions {
  /** RECALL_LIMIT: the section's own entries (DESIGN §8). */
  limit: number;
  /** Ranked entries offered past `limit`, to fill room the hot rounds leave (the composer decides, by budget). */
  pool: number;
}

/** Extra ranked hits offered past RECALL_LIMIT, room permitting (tuned on LoCoMo, docs/layered-context.md). */
export const DEFAULT_RECALL_POOL = 100;

/** A recalled message is cut here: one long speech must not crowd out the other hits. */
const MAX_RECALLED_CHARS = 1000;

interface Candidate {
  entry: SectionEntry;
  /** Score relative to the best hit of its own kind (engines' scores are comparable within one answer only). */
  score: number;
  kind: number;
  /** A message's speaker. */
  speaker?: string;
}

/** Score factor of a message whose speaker the query names (tuned on LoCoMo, docs/layered-context.md). */
const SPEAKER_BOOST = 2;

const MEMORY_SECTIONS = new Set(['location', 'npc', 'world']);

/**
 * Recalled (DESIGN §8): with `query=`, the older messages, memories and glossary entries the search index ranks
 * highest for it that the context does not already hold, filtered by what the viewer witnessed, best first, each with
 * its round/date. Built after the other sections; hits Recent Messages holds are left out by the composer (and come
 * back if the budget takes them from Recent). Without a search index the section is absent.
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

  async build({ request, snapshot, audience, others = [] }: SectionInput): Promise<BuiltSection | null> {
    if (!this.index) return null;
    const words = request.query === undefined ? null : recallQuery(request.query);
    const query = words && withStemPrefixes(words);
    if (!words || !query || this.options.limit + this.options.pool === 0) return { key: this.key, title: this.title, entries: [] };
    // Hot messages stay candidates: if Recent Messages loses one to the budget, the composer brings its hit back here.
    const held = new Set(others.filter((s) => MEMORY_SECTIONS.has(s.key)).flatMap((s) => s.entries.map((e) => e.ref)));
    const hot = others.find((s) => s.key === 'recent')?.entries.length ?? 0;
    const heldTerms = new Set(others.filter((s) => s.key === 'glossary').flatMap((s) => s.entries.map((e) => e.ref.toLowerCase())));
    const want = this.options.limit + this.options.pool;
    // Hits the viewer may not see or the context already holds are skipped, so ask for more than we keep.
    const ask = Math.min(500, 3 * want + held.size + hot);
    const cid = request.campaignId;
    const witness = audience?.witness ?? null;
    const dm = audience?.dm ?? false;
    const [messageHits, memoryHits] = await Promise.all([
      this.index.search(cid, query, { in: 'messages', limit: ask }),
      this.index.search(cid, query, { in: 'memories', limit: ask }),
    ]);
    // A query that names a speaker ("what did Caroline paint?") asks what that speaker said more than what was said to
    // them: the named speakers' messages rank higher.
    const found = await this.messages(cid, messageHits.filter((h) => !held.has(String(h.ref))), witness, dm);
    const named = speakerWords(queryWords(words), found);
    const messages = named.size ? found.map((c) => (c.speaker && wordsOf(c.speaker).some((w) => named.has(w)) ? { ...c, score: c.score * SPEAKER_BOOST } : c)) : found;
    const candidates = [
      ...messages,
      ...(await this.memoryCandidates(cid, memoryHits.filter((h) => !held.has(String(h.ref))), witness)),
      ...this.glossary(await this.layers.glossary(cid, snapshot.state.glossary ?? {}, { viewer: witness, publicOnly: !dm }), heldTerms, wordsOf(queryWords(words).join(' '))),
    ];
    candidates.sort((a, b) => b.score - a.score || a.kind - b.kind || (a.entry.ref < b.entry.ref ? -1 : a.entry.ref > b.entry.ref ? 1 : 0));
    const picked = await this.withReplies(cid, candidates.slice(0, want + hot), witness, dm);
    const entries = picked.map((c, i) => ({ ...c.entry, rank: i + 1 }));
    return { key: this.key, title: this.title, entries, limit: this.options.limit, timeline: true };
  }

  private async messages(campaignId: string, hits: SearchHit[], witness: string | null, dm: boolean): Promise<Candidate[]> {
    if (hits.length === 0) return [];
    const indexes = hits.map((h) => Number(h.ref));
    const seen = witness ? await this.campaigns.witnessed(campaignId, witness, indexes) : null;
    const byIndex = new Map((await this.campaigns.messagesByIndex(campaignId, indexes)).map((m) => [m.index, m]));
    const top = hits[0].score || 1;
    return hits.flatMap((h) => {
      const m = byIndex.get(Number(h.ref));
      if (!m || (seen && !seen.has(m.index)) || (!witness && !dm && m.visibility === 'dm')) return [];
      return [{ entry: messageEntry(m), score: h.score / top, kind: 0, speaker: m.speaker ?? undefined }];
    });
  }

  /**
   * Each recalled message that asks something (has a `?`) brings the one after it — usually its answer — unless it is a
   * hit itself or the viewer never saw it; a statement stands alone (tuned on LoCoMo, docs/layered-context.md).
   */
  private async withReplies(campaignId: string, picked: Candidate[], witness: string | null, dm: boolean): Promise<Candidate[]> {
    const refs = new Set(picked.map((c) => c.entry.ref));
    const wanted = picked.filter((c) => c.kind === 0 && c.entry.text.includes('?')).map((c) => Number(c.entry.ref) + 1).filter((i) => !refs.has(String(i)));
    const replies = await this.campaigns.messagesByIndex(campaignId, wanted);
    const seen = witness ? await this.campaigns.witnessed(campaignId, witness, replies.map((m) => m.index)) : null;
    const byIndex = new Map(replies.filter((m) => (seen ? seen.has(m.index) : dm || m.visibility !== 'dm')).map((m) => [m.index, m]));
    return picked.flatMap((c) => {
      const reply = c.kind === 0 ? byIndex.get(Number(c.entry.ref) + 1) : undefined;
      return reply ? [c, { entry: messageEntry(reply), score: c.score, kind: 0 }] : [c];
    });
  }

  private async memoryCandidates(campaignId: string, hits: SearchHit[], witness: string | null): Promise<Candidate[]> {
    if (hits.length === 0) return [];
    const summaries = new Map((await this.memories.byIds(campaignId, hits.map((h) => String(h.ref)), witness ?? undefined)).map((m) => [m.id, m]));
    const top = hits[0].score || 1;
    return hits.flatMap((h) => {
      const m = summaries.get(String(h.ref));
      if (!m) return [];
      const when = [h.round !== null ? `round ${h.round}` : null, toDay(m.createdAt)].filter(Boolean).join(' · ');
      return [{ entry: { ref: m.id, subjectId: m.subjectId, createdAt: m.createdAt, text: `- [${when}] Memory (${m.scope} ${m.subjectId}): ${oneLine(m.summary)}` }, score: h.score / top, kind: 1 }];
    });
  }

  /** The glossary is small and already loaded: its entries are ranked here by the query's words (term words weigh double). */
  private glossary(entries: GlossaryEntry[], held: Set<string>, words: string[]): Candidate[] {
    const scored = entries
      .filter((e) => !held.has(e.term.toLowerCase()))
      .map((e) => {
        const term = new Set(wordsOf(e.term));
        const definition = new Set(wordsOf(e.definition));
        return { e, score: words.reduce((n, w) => n + (term.has(w) ? 2 : definition.has(w) ? 1 : 0), 0) };
      })
      .filter((x) => x.score > 0);
    const top = Math.max(1, ...scored.map((x) => x.score));
    return scored.map(({ e, score }) => ({
      entry: { ref: `glossary:${e.term}`, createdAt: e.createdAt ?? undefined, text: `- [${e.createdAt ? toDay(e.createdAt) : 'DM'}] Glossary — ${oneLine(e.term)}: ${oneLine(e.definition)}` },
      score: score / top,
      kind: 2,
    }));
  }
}

/**
 * A recalled message: `Aria: …` under its group `round 2 · 1 May 2026`. The text form prints Recall as a timeline with
 * one header per round and day rather than a date on every line — ~10 tokens a line that buy more hits per budget.
 */
function messageEntry(m: StoredMessage): SectionEntry {
  const text = oneLine(m.content);
  const cut = text.length > MAX_RECALLED_CHARS ? `${text.slice(0, MAX_RECALLED_CHARS - 1)}…` : text;
  return { ref: String(m.index), createdAt: m.at, group: `round ${m.round} · ${toDay(m.at)}`, seq: m.index, text: `${m.speaker ?? m.role}: ${cut}` };
}

/** Query words that name a speaker of the hits (case-insensitive). */
function speakerWords(words: string[], hits: Candidate[]): Set<string> {
  const speakers = new Set(hits.flatMap((c) => (c.speaker ? wordsOf(c.speaker) : [])));
  return new Set(words.filter((w) => speakers.has(w)));
}

const wordsOf = (text: string): string[] =>
  (text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * A poor man's stemmer for recall (the index does not stem): a word of 5+ letters loses a common English suffix and
 * becomes a prefix, so "painted" also finds "painting" and "painter" (tuned on LoCoMo, docs/layered-context.md).
 */
export function withStemPrefixes(q: QueryNode): QueryNode {
  const stem = (w: string): QueryNode => {
    if ([...w].length < 5) return { kind: 'word', word: w, prefix: false };
    const cut = w.replace(/(?:ing|ed|es|er|ly|s)$/u, '');
    return { kind: 'word', word: [...cut].length >= 4 ? cut : w, prefix: true };
  };
  if (q.kind === 'word') return stem(q.word);
  if (q.kind === 'or') return { kind: 'or', children: q.children.map((c) => (c.kind === 'word' ? stem(c.word) : c)) };
  return q;
}
