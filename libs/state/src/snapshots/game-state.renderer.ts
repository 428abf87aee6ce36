import { cutText } from '@app/common';
import { isJsonObject } from './deep-merge';
import { Age, ageOf, ageSpan, recency } from './recency';
import { isOverAge, ToolRule } from './staleness';

/** One stored tool result as the renderer needs it. */
export interface SnapshotView {
  tool: string;
  tick: number | null;
  capturedAt: string;
  stale: boolean;
  content: unknown;
}

export interface GameStateInput {
  snapshots: SnapshotView[];
  rules: Record<string, ToolRule>;
  /** The game's current tick (context `tick=`); else the newest snapshot tick. */
  tick: number | null;
  now: Date;
  tickSeconds: number;
  maxTokens: number;
  count: (text: string) => number;
}

export interface RenderedGameState {
  title: string;
  entries: { ref: string; text: string }[];
  /** Tool blocks shortened to their header for the budget, oldest first. */
  shortened: { ref: string; tokens: number }[];
  stale: string[];
}

export const STATE_TITLE = 'Current Game State';
export const NOT_LOGGED_IN = 'Not logged in. Use register or login.';
const MAX_BLOCK_LINES = 30;
const MAX_VALUE_CHARS = 80;
const FIRST_ITEMS = 3;

/** `get_status` → `Status`: the block title when none is configured. */
export function defaultTitle(tool: string): string {
  const base = tool.replace(/^get_/, '').replace(/[_-]+/g, ' ').trim() || tool;
  return base.charAt(0).toUpperCase() + base.slice(1);
}

/** The current tick: the caller's, else the newest tick among the snapshots (null when none has one). */
export function currentTick(snapshots: { tick: number | null }[], given: number | null): number | null {
  if (given !== null) return given;
  const ticks = snapshots.map((s) => s.tick).filter((t): t is number => t !== null);
  return ticks.length ? Math.max(...ticks) : null;
}

/** True when the stored flag or the tool's maxAgeTicks says the snapshot is stale. */
export function isStale(
  s: SnapshotView,
  rule: ToolRule | undefined,
  tick: number | null,
  now: Date,
  tickSeconds: number,
): boolean {
  return s.stale || isOverAge(s, rule?.maxAgeTicks ?? null, tick, now, tickSeconds);
}

/** The Current Game State section (DESIGN §5): header, one block per tool, stale lines, what to call. */
export function renderGameState(input: GameStateInput): RenderedGameState {
  const { snapshots, rules, now, tickSeconds } = input;
  if (snapshots.length === 0)
    return {
      title: STATE_TITLE,
      entries: [{ ref: 'empty', text: 'No game state stored yet.' }],
      shortened: [],
      stale: [],
    };
  const tick = currentTick(snapshots, input.tick);
  const ages = new Map(snapshots.map((s) => [s.tool, ageOf(s.tick, s.capturedAt, tick, now)]));
  const newest = newestAge(snapshots, tick, now);
  const title = `${STATE_TITLE} (updated ${recency(newest, tickSeconds)})`;
  const ordered = [...snapshots].sort((a, b) => cmp(a.tool, b.tool));
  const stale = ordered.filter((s) => isStale(s, rules[s.tool], tick, now, tickSeconds)).map((s) => s.tool);

  const blocks = ordered.map((s) => {
    const header =
      `### ${rules[s.tool]?.title ?? defaultTitle(s.tool)} (${s.tool} — ` +
      `${recency(ages.get(s.tool)!, tickSeconds)})`;
    const lines = fieldLines(s.content, rules[s.tool]?.fields ?? null);
    return { snapshot: s, header, text: [header, ...lines].join('\n') };
  });
  const entries = [
    { ref: 'last-updated', text: `Last updated: ${recency(newest, tickSeconds, true)}` },
    ...blocks.map((b) => ({ ref: b.snapshot.tool, text: b.text })),
    ...(stale.length
      ? [
          {
            ref: 'stale',
            text: stale
              .map((t) => `Stale: ${t} is ${ageSpan(ages.get(t)!)} old — refresh before relying on it`)
              .join('\n'),
          },
        ]
      : []),
    { ref: 'to-update', text: `To update: call ${(stale.length ? stale : ordered.map((s) => s.tool)).join(', ')}` },
  ];

  const cost = (text: string) => input.count(`${text}\n`);
  let used = input.count(`## ${title}\n`) + entries.reduce((n, e) => n + cost(e.text), 0);
  const shortened: { ref: string; tokens: number }[] = [];
  const oldestFirst = [...blocks].sort((a, b) => olderFirst(a.snapshot, b.snapshot));
  for (const block of oldestFirst) {
    if (used <= input.maxTokens) break;
    if (block.text === block.header) continue;
    const entry = entries.find((e) => e.ref === block.snapshot.tool)!;
    const saved = cost(entry.text) - cost(block.header);
    entry.text = block.header;
    used -= saved;
    shortened.push({ ref: block.snapshot.tool, tokens: saved });
  }
  return { title, entries, shortened, stale };
}

function newestAge(snapshots: SnapshotView[], tick: number | null, now: Date): Age {
  const ticked = snapshots.filter((s) => s.tick !== null);
  if (tick !== null && ticked.length)
    return { kind: 'ticks', ticks: Math.max(0, tick - Math.max(...ticked.map((s) => s.tick!))) };
  const latest = Math.max(...snapshots.map((s) => Date.parse(s.capturedAt)));
  return { kind: 'wall', seconds: Math.max(0, Math.floor((now.getTime() - latest) / 1000)) };
}

/** Missing ticks count as oldest; then by capture time. */
function olderFirst(a: SnapshotView, b: SnapshotView): number {
  const ta = a.tick ?? -Infinity;
  const tb = b.tick ?? -Infinity;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return cmp(a.capturedAt, b.capturedAt) || cmp(a.tool, b.tool);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Configured fields, else top-level scalars and one nested level; never the raw content. */
export function fieldLines(content: unknown, fields: string[] | null): string[] {
  const lines = fields ? fields.flatMap((path) => pathLines(path, valueAt(content, path))) : defaultLines(content);
  if (lines.length <= MAX_BLOCK_LINES) return lines;
  return [...lines.slice(0, MAX_BLOCK_LINES), `… ${lines.length - MAX_BLOCK_LINES} more fields`];
}

function defaultLines(content: unknown): string[] {
  if (Array.isArray(content)) return [arrayLine('items', content)];
  if (!isJsonObject(content)) return [`value: ${scalar(content)}`];
  return Object.entries(content).flatMap(([key, value]) => {
    if (!isJsonObject(value)) return [leafLine(key, value)];
    return Object.entries(value).map(([sub, v]) =>
      isJsonObject(v) ? `${key}.${sub}: {${Object.keys(v).length} fields}` : leafLine(`${key}.${sub}`, v),
    );
  });
}

function pathLines(path: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!isJsonObject(value)) return [leafLine(path, value)];
  return Object.entries(value).map(([k, v]) =>
    isJsonObject(v) ? `${path}.${k}: {${Object.keys(v).length} fields}` : leafLine(`${path}.${k}`, v),
  );
}

function valueAt(content: unknown, path: string): unknown {
  let at: unknown = content;
  for (const part of path.split('.')) {
    // Own properties only: a configured field `toString` must not render Object's inherited method.
    if (!isJsonObject(at) || !Object.hasOwn(at, part)) return undefined;
    at = at[part];
  }
  return at;
}

const leafLine = (name: string, value: unknown) =>
  Array.isArray(value) ? arrayLine(name, value) : `${name}: ${scalar(value)}`;

/** `systems: 487 items`, `cargo: 3 items (ore, ice, gas)`. */
function arrayLine(name: string, items: unknown[]): string {
  const scalars = items.filter((v) => v === null || typeof v !== 'object');
  const shown = scalars.slice(0, FIRST_ITEMS).map((v) => scalar(v, 40));
  const more = scalars.length > FIRST_ITEMS ? ', …' : '';
  const list = shown.length ? ` (${shown.join(', ')}${more})` : '';
  return `${name}: ${items.length} item${items.length === 1 ? '' : 's'}${list}`;
}

function scalar(value: unknown, max = MAX_VALUE_CHARS): string {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : (JSON.stringify(value) ?? 'null');
  return cutText(text, max);
}
