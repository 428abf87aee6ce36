import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Share of sampled time per area (package, @app lib, node internals), self time. */
  selfByArea: { area: string; selfPct: number }[];
  /** Share of samples with the area anywhere on the stack (inclusive). */
  inclusiveByArea: { area: string; inclusivePct: number }[];
  topFunctions: { fn: string; area: string; selfPct: number }[];
}

/** The area a script belongs to: npm package, @app library, our app, or node internals. */
export function areaOf(url: string): string | null {
  if (!url) return null;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const lib = /dist\/libs\/([^/]+)\//.exec(url);
  if (lib) return `@app/${lib[1]}`;
  if (/dist\/apps\//.test(url)) return 'app (http layer)';
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^file:\/\//, '');
}

/** A span of the monotonic clock in µs (V8 profiles and process.hrtime share CLOCK_MONOTONIC on Linux). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Now on the clock V8 stamps profile samples with, in µs. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`: the main thread's profiles have thread id 0. */
const MAIN_THREAD = /\.\d+\.0\.\d+\.cpuprofile$/;

/**
 * Reads the newest main-thread .cpuprofile in a folder and summarizes where time went (within `window` when given:
 * boot excluded). Worker threads (the WAL checkpointer, read workers) write profiles of their own, which are left out.
 */
export function summarizeProfileDir(dir: string, top = 12, window?: ProfileWindow): ProfileSummary | null {
  const all = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const files = all.some((f) => MAIN_THREAD.test(f)) ? all.filter((f) => MAIN_THREAD.test(f)) : all;
  if (files.length === 0) return null;
  const file = join(dir, files[files.length - 1]);
  return summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, file, top, window);
}

export function summarizeProfile(profile: CpuProfile, file: string, top = 12, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Native frames (no url) inherit the area of their JS caller: "better-sqlite3 run" is better-sqlite3's time.
  const areaCache = new Map<number, string>();
  const areaOfNode = (id: number): string => {
    const cached = areaCache.get(id);
    if (cached) return cached;
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    let area = areaOf(n.callFrame.url);
    if (!area) {
      if (name.startsWith('('))
        area = name; // (garbage collector), (idle), (program)
      else area = parent.has(id) ? areaOfNode(parent.get(id)!) : '(native)';
    }
    areaCache.set(id, area);
    return area;
  };
  const selfMs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...selfMs.entries()]
    .filter(([id]) => byId.get(id)!.callFrame.functionName !== '(idle)')
    .reduce((a, [, ms]) => a + ms, 0);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const fns = new Map<string, { area: string; ms: number }>();
  for (const [id, ms] of selfMs) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    const area = areaOfNode(id);
    self.set(area, (self.get(area) ?? 0) + ms);
    const fnKey = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? `${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}` : '(native)'}`;
    const f = fns.get(fnKey) ?? { area, ms: 0 };
    f.ms += ms;
    fns.set(fnKey, f);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) seen.add(areaOfNode(cur));
    for (const a of seen) inclusive.set(a, (inclusive.get(a) ?? 0) + ms);
  }
  const pct = (ms: number) => Math.round((1000 * ms) / Math.max(total, 1e-9)) / 10;
  return {
    file,
    totalMs: Math.round(total),
    selfByArea: [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, ms]) => ({ area, selfPct: pct(ms) })),
    inclusiveByArea: [...inclusive.entries()]
      .filter(([a]) => !a.startsWith('('))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, ms]) => ({ area, inclusivePct: pct(ms) })),
    topFunctions: [...fns.entries()]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([fn, f]) => ({ fn, area: f.area, selfPct: pct(f.ms) })),
  };
}
