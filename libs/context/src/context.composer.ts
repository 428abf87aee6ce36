import { giveBack } from '@app/common';
import { Audience, BuiltSection, ContextRequest, ContextSection, ContextSnapshot, DroppedEntry } from './context.types';
import { ComposedSection, OMNISCIENT, SECTION_ORDER, SectionEntry, SectionKey } from './context.types';
import { DROP_ORDER, PRESETS } from './sections';
import { SentenceMemo } from './sentence-memo';
import { layoutTokens, listTokensAfterDrop } from './text-layout';
import { TokenCounter } from './token-counter.port';
import { glossaryRoom, markGlossaryUse } from './glossary-budget';
import { Cut, dropOldest, Gone, pickVictim } from './budget-cut';
import { settleTrailer, Trailer, trailerReserve } from './trailer';
import { keepNewSentences, splitEntryLine } from './entry-sentences';

/** See ContextComposer's `recallShare`. */
export const DEFAULT_RECALL_SHARE = 0.95;

/** §8: the newest Recent Messages kept until memories are gone (MIN_RECENT_MESSAGES). */
export const DEFAULT_MIN_RECENT_MESSAGES = 4;

/**
 * Sections whose entries the no-sentence-twice rule may shorten (§8; a glossary definition repeats nothing either);
 * everything else only counts as already said.
 */
const SUMMARY_SECTIONS = new Set<SectionKey>(['glossary', 'previously', 'location', 'npc', 'world']);

/** What fit() leaves: the tokens used, and the Recall hits it dropped when the refill may bring them back. */
interface Fitted {
  used: number;
  refill?: { recall: ComposedSection; gone: Gone[] };
}

export type { ComposedSection } from './context.types';

export interface ComposedContext {
  version: number;
  /** DESIGN §10: the campaign's timeline (1, +1 per rewind). */
  timeline: number;
  processedVersion: number;
  request: ContextRequest;
  sections: ComposedSection[];
  budget: number | null;
  used: number;
  dropped: DroppedEntry[];
  overBudget: boolean;
  /** The text form's counted last line (§8); null for a §2 request, which has none. */
  trailer: Trailer | null;
  extra: Record<string, unknown>;
}

/** The one context composer: picks sections, counts tokens, enforces the budget, reports drops. */
export class ContextComposer {
  private readonly table = new Map<SectionKey, ContextSection>();
  /** Sentences and keys of the texts the no-sentence-twice rule reads, per text (see dedupe). */
  private readonly sentences = new SentenceMemo();

  constructor(
    private readonly counter: TokenCounter,
    sections: ContextSection[],
    /**
     * Share of the room Recent Messages and a query's extra recall hits hold that those hits may keep (tuned on LoCoMo,
     * docs/layered-context.md).
     */
    private readonly recallShare = DEFAULT_RECALL_SHARE,
    private readonly minRecent = DEFAULT_MIN_RECENT_MESSAGES,
    /**
     * §13 GLOSSARY_MAX_TOKENS: Glossary tokens never dropped (null: 20 % of the budget); §8's counted text trailer
     * (off only where a test looks at the fitting alone).
     */
    private readonly limits: { glossaryMaxTokens?: number | null; countTrailer?: boolean } = {},
  ) {
    for (const s of sections) this.table.set(s.key, s);
  }

  has(key: SectionKey): boolean {
    return this.table.has(key);
  }

  async compose(
    request: ContextRequest,
    snapshot: ContextSnapshot,
    budget: number | null,
    audience: Audience = OMNISCIENT,
  ): Promise<ComposedContext> {
    const present = await this.buildSections(request, snapshot, audience);
    // §3 no request holds the event loop long (issue 18): the reads are done, and over entries at the size limits
    // each step below is work of its own, so the loop is given back between them (and inside the warm-ups).
    await giveBack();
    // Long hostile entries are counted here in slices that give the event loop back; measure() then reads the cache.
    await this.counter.warm?.(present.flatMap((s) => (s.omitted ? [] : s.entries.map((e) => `${e.text}\n`))));
    const sections = present.filter((s) => !s.omitted).map((s) => this.measure(s));
    // A section left out whole (the `state` of an as-of context) still reports why.
    const dropped: DroppedEntry[] = [...present.filter((s) => s.omitted), ...sections].flatMap((s) => s.dropped ?? []);
    await giveBack();
    // Long entries are split into sentences here, giving the event loop back between them; dedupe() reads the memo.
    await this.sentences.warm(sections.flatMap((s) => s.entries.map((e) => dedupeText(s, e))));
    this.dedupe(sections, dropped);
    await giveBack();
    const { used, trailer } = this.budgetSections(sections, dropped, budget);
    const extra = Object.assign({}, ...present.map((s) => s.extra ?? {}));
    return {
      version: snapshot.state.version,
      timeline: snapshot.horizon.timeline,
      processedVersion: snapshot.processedVersion,
      request,
      sections,
      budget,
      used,
      dropped,
      overBudget: budget !== null && used > budget,
      trailer: trailer && { line: trailer.line, tokens: trailer.tokens },
      extra,
    };
  }

  /** The sections the request wants, built in SECTION_ORDER; those that read the others (`after`) last. */
  private async buildSections(
    request: ContextRequest,
    snapshot: ContextSnapshot,
    audience: Audience,
  ): Promise<BuiltSection[]> {
    const wanted = new Set(request.include ?? PRESETS[request.agent]);
    const keys = SECTION_ORDER.filter((k) => wanted.has(k) && this.table.has(k));
    const first = keys.filter((k) => !this.table.get(k)!.after);
    const built = new Map<SectionKey, BuiltSection | null>();
    // Each section starts on a turn of the event loop of its own (issue 18): over SQLite a section's reads run
    // synchronously, and started together every section's reads held the loop at once; over PostgreSQL they still
    // run side by side.
    let turn: Promise<void> = Promise.resolve();
    const starts = first.map((_k, i) => (i === 0 ? turn : (turn = turn.then(giveBack))));
    (
      await Promise.all(
        first.map((k, i) => starts[i].then(() => this.table.get(k)!.build({ request, snapshot, audience }))),
      )
    ).forEach((b, i) => built.set(first[i], b));
    const others = [...built.values()].filter((s): s is BuiltSection => s !== null && !s.omitted);
    for (const k of keys.filter((k) => this.table.get(k)!.after))
      built.set(k, await this.table.get(k)!.build({ request, snapshot, audience, others }));
    return keys.map((k) => built.get(k) ?? null).filter((s): s is BuiltSection => s !== null);
  }

  /** Fits the sections to the budget (drops, Recent's duplicates, the refill) and settles the counted trailer. */
  private budgetSections(
    sections: ComposedSection[],
    dropped: DroppedEntry[],
    budget: number | null,
  ): { used: number; trailer: ReturnType<typeof settleTrailer> | null } {
    // §8 the trailer is counted: the content is fitted to what the longest trailer it can get leaves.
    const counted = (this.limits.countTrailer ?? true) && budget !== null;
    const room = !counted ? budget : Math.max(0, budget! - this.trailerRoom(sections, dropped, budget!));
    let used = sum(sections);
    const fitted = room === null ? null : this.fit(sections, room, dropped);
    if (fitted) used = fitted.used;
    used -= this.dropHeldByRecent(sections, dropped);
    if (fitted?.refill) {
      const recent = sections.find((s) => s.key === 'recent');
      used = this.refill(fitted.refill.recall, fitted.refill.gone, dropped, room!, used, recent);
    }
    const trailer = counted ? settleTrailer(this.counter, used, budget!, dropped) : null;
    return { used: trailer ? trailer.used : used, trailer };
  }

  /** The longest the trailer can become: drops so far plus every entry, under every reason that may still occur. */
  private trailerRoom(sections: ComposedSection[], dropped: DroppedEntry[], budget: number): number {
    const entries = sections.reduce((n, s) => n + s.entries.length, 0);
    const reasons = new Set<string>(['budget', 'duplicate', ...dropped.map((d) => d.reason)]);
    return trailerReserve(this.counter, budget, dropped.length + entries, reasons);
  }

  /**
   * Recall hits that Recent Messages still holds once the budget is met leave Recall, each reported as a `duplicate`
   * with what it saved. They compete in Recall until then: a hit the budget takes from Recent stays in Recall at its
   * rank, its round-and-day header counted like any other's. Returns the tokens saved.
   */
  private dropHeldByRecent(sections: ComposedSection[], dropped: DroppedEntry[]): number {
    const recall = sections.find((s) => s.key === 'recall');
    const recent = sections.find((s) => s.key === 'recent');
    if (!recall || !recent) return 0;
    const held = new Set(recent.entries.map((e) => e.ref));
    let saved = 0;
    // Lowest rank first, so that the last of a group takes its header along (as budget drops do).
    for (let i = recall.entries.length - 1; i >= 0; i--) {
      if (!held.has(recall.entries[i].ref)) continue;
      const [gone] = recall.entries.splice(i, 1);
      const before = recall.tokens;
      recall.tokens = this.sectionTokens(recall);
      saved += before - recall.tokens;
      dropped.push({ section: recall.key, ref: gone.ref, tokens: before - recall.tokens, reason: 'duplicate' });
    }
    return saved;
  }

  /**
   * §8 no sentence twice: a sentence of a Previously or memory entry (Recall's memory hits included) that the context
   * already holds elsewhere — in a message, another section, an earlier entry — is removed, compared case- and
   * whitespace-insensitively and without the `Speaker:` / `At <place>:` labels in front; an entry left empty is dropped
   * with reason `duplicate`. Messages are never cut. Runs before the budget, so drops and `used` still add up.
   */
  private dedupe(sections: ComposedSection[], dropped: DroppedEntry[]): void {
    const held = new Set<string>();
    for (const s of sections) {
      for (const e of s.entries) {
        if (!shortenable(s, e)) for (const key of this.sentences.split(dedupeText(s, e)).keys) held.add(key);
      }
    }
    for (const s of sections) {
      let changed = false;
      s.entries = s.entries.filter((e) => {
        if (!shortenable(s, e)) return true;
        const { prefix, summary } = splitEntryLine(e.text, s.key);
        const kept = keepNewSentences(this.sentences.split(summary), held);
        if (kept.length === 0) {
          dropped.push({ section: s.key, ref: e.ref, tokens: e.tokens ?? 0, reason: 'duplicate' });
          changed = true;
          return false;
        }
        const text = `${prefix}${kept.join(' ')}`;
        if (text !== e.text) {
          e.text = text;
          e.tokens = this.counter.count(`${text}\n`);
          changed = true;
        }
        return true;
      });
      if (changed) s.tokens = this.sectionTokens(s);
    }
  }

  private measure(s: BuiltSection): ComposedSection {
    for (const e of s.entries) e.tokens = this.counter.count(`${e.text}\n`);
    return { ...s, tokens: this.sectionTokens(s) };
  }

  /** Heading + entries + the group headers the text form prints between them (text-layout.ts). */
  private sectionTokens(s: BuiltSection): number {
    if (s.entries.length === 0) return 0;
    const heading = s.inline ? 0 : this.counter.count(`## ${s.title}\n`);
    if (!s.entries.some((e) => e.group !== undefined))
      return heading + s.entries.reduce((n, e) => n + (e.tokens ?? 0), 0);
    return heading + layoutTokens(s.entries, s.timeline === true, this.headerTokens);
  }

  private readonly headerTokens = (header: string) => this.counter.count(`${header}\n`);

  /** `sectionTokens` once `gone` left `s.entries` at `index` (a timeline, or an emptied section, recounted). */
  private tokensAfterDrop(s: ComposedSection, index: number, gone: SectionEntry[]): number {
    if (s.timeline === true || s.entries.length === 0) return this.sectionTokens(s);
    const tokens = listTokensAfterDrop(s.entries, index, gone, s.tokens, this.headerTokens);
    if (CHECK_COUNTS && tokens !== this.sectionTokens(s)) throw new Error(`${s.key}: drop miscounted`);
    return tokens;
  }

  /**
   * Drops entries in the stated order until the sections fit; returns the tokens used. Recall entries past its own
   * limit (a query's extra hits) go first, but may keep up to `recallShare` of what they and Recent Messages hold.
   */
  private fit(sections: ComposedSection[], budget: number, dropped: DroppedEntry[]): Fitted {
    const recall = sections.find((s) => s.key === 'recall');
    const recent = sections.find((s) => s.key === 'recent');
    const cut = new Cut(sum(sections), dropped, recall, (s, index, gone) => this.tokensAfterDrop(s, index, gone));
    if (recall) {
      // Recall is dropped from its lowest rank up, so hits past the rank where its entries alone exceed the whole
      // budget can never be served: they go at once, lowest rank first, instead of one recount each.
      let total = 0;
      const at = recall.entries.findIndex((e) => (total += e.tokens ?? 0) > budget);
      if (at !== -1) cut.drop(recall, at, recall.entries.length - at);
    }
    if (recall?.limit !== undefined) this.shareRecall(recall, recent, budget, cut);
    const pastRecall = this.dropInOrder(sections, recent, budget, cut);
    return { used: cut.used, refill: recall && !pastRecall ? { recall, gone: cut.recallGone } : undefined };
  }

  /** A query's extra Recall hits (past its limit) go first, but may keep `recallShare` of what they and Recent hold. */
  private shareRecall(recall: ComposedSection, recent: ComposedSection | undefined, budget: number, cut: Cut): void {
    const extraTokens = () => recall.entries.slice(recall.limit).reduce((n, e) => n + (e.tokens ?? 0), 0);
    while (cut.used > budget && recall.entries.length > recall.limit!) {
      const extras = extraTokens();
      const recentTokens = recent?.tokens ?? 0;
      const recentSpare = (recent?.entries.length ?? 0) > this.minRecent;
      const recallGives = !recentSpare || recentTokens === 0 || extras > this.recallShare * (extras + recentTokens);
      if (recallGives) cut.drop(recall, recall.entries.length - 1);
      else cut.drop(recent!, 0);
    }
  }

  /**
   * Drops by DROP_ORDER until the sections fit. Returns whether the budget took anything that goes after Recall
   * (memories, the newest Recent Messages): then Recall gets no room back, however much is left.
   */
  private dropInOrder(
    sections: ComposedSection[],
    recent: ComposedSection | undefined,
    budget: number,
    cut: Cut,
  ): boolean {
    let pastRecall = false;
    // §13: the Glossary keeps `room` tokens; past them its terms go with memories, least recently used first.
    const room = glossaryRoom(budget, this.limits.glossaryMaxTokens ?? null);
    const glossary = sections.find((s) => s.key === 'glossary');
    if (glossary && glossary.tokens > room && cut.used > budget) {
      markGlossaryUse(glossary.entries, recent?.entries ?? []);
    }
    const droppable = (s: ComposedSection, keepNewest?: true) =>
      (!keepNewest || s.entries.length > this.minRecent) && (s !== glossary || s.tokens > room);
    const recallGroup = DROP_ORDER.findIndex((g) => g.keys.includes('recall'));
    for (const group of DROP_ORDER) {
      const members = sections.filter((s) => group.keys.includes(s.key));
      const keep = group.keepNewest ? this.minRecent : 0;
      if (members.length === 1 && dropOldest(cut, members[0], keep, budget, this.headerTokens) > 0) {
        pastRecall ||= DROP_ORDER.indexOf(group) > recallGroup;
        if (CHECK_COUNTS && members[0].tokens !== this.sectionTokens(members[0])) throw new Error('drop miscounted');
      }
      while (cut.used > budget) {
        const victim = pickVictim(members.filter((s) => droppable(s, group.keepNewest)));
        if (!victim) break;
        pastRecall ||= DROP_ORDER.indexOf(group) > recallGroup;
        cut.drop(victim.section, victim.index);
      }
    }
    return pastRecall;
  }

  /**
   * Dropping lowest rank first stops at the first fit, which can leave room a shorter hit of lower rank would fill: the
   * dropped hits, best first, come back where they fit. A hit comes back only when it costs exactly what its drop
   * reported (its group header included), so `used` + Σ dropped still adds up.
   */
  private refill(
    recall: ComposedSection,
    gone: Gone[],
    dropped: DroppedEntry[],
    budget: number,
    used: number,
    recent?: ComposedSection,
  ): number {
    const held = new Set(recent?.entries.map((e) => e.ref));
    for (const { entry, report } of [...gone].sort((a, b) => (a.entry.rank ?? 0) - (b.entry.rank ?? 0))) {
      if (budget - used < (entry.tokens ?? 0) || held.has(entry.ref)) continue;
      const at = recall.entries.findIndex((e) => (e.rank ?? 0) > (entry.rank ?? 0));
      const slot = at === -1 ? recall.entries.length : at;
      recall.entries.splice(slot, 0, entry);
      const was = recall.tokens;
      recall.tokens = this.sectionTokens(recall);
      const cost = recall.tokens - was;
      if (cost !== report.tokens || used + cost > budget) {
        recall.entries.splice(slot, 1);
        recall.tokens = was;
        continue;
      }
      used += cost;
      dropped.splice(dropped.indexOf(report), 1);
    }
    return used;
  }
}

/** Tests check each drop's local count against a full recount. */
const CHECK_COUNTS = process.env.NODE_ENV === 'test';

const sum = (sections: ComposedSection[]) => sections.reduce((n, s) => n + s.tokens, 0);

/** A Recall entry that is a memory hit (`- [round 2 · 1 May 2026] Memory (location inn): …`). */
const isRecalledMemory = (e: SectionEntry) => /^- \[[^\]]*\] Memory \(/u.test(e.text);

/** An entry the no-sentence-twice rule may shorten: a Previously or memory entry, or a Recall memory hit. */
const shortenable = (s: ComposedSection, e: SectionEntry) =>
  SUMMARY_SECTIONS.has(s.key) || (s.key === 'recall' && isRecalledMemory(e));

/**
 * What dedupe splits into sentences: a shortenable entry's summary, else what the entry says (a message's own words).
 */
const dedupeText = (s: ComposedSection, e: SectionEntry) =>
  shortenable(s, e) ? splitEntryLine(e.text, s.key).summary : (e.body ?? e.text);
