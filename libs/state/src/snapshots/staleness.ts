/** Seed defaults: which tools an action invalidates (DESIGN §5). */
export const DEFAULT_INVALIDATIONS: Readonly<Record<string, readonly string[]>> = {
  travel: ['get_status', 'get_system', 'get_poi', 'get_nearby'],
  mine: ['get_ship', 'get_cargo'],
  buy: ['get_status', 'get_ship', 'get_cargo'],
  sell: ['get_status', 'get_ship', 'get_cargo'],
  attack: ['get_status', 'get_ship'],
};

/** Per-campaign rule of one tool (PUT …/snapshot-tools/:tool); null = not configured. */
export interface ToolRule {
  tool: string;
  title: string | null;
  fields: string[] | null;
  invalidatedBy: string[] | null;
  maxAgeTicks: number | null;
}

/** The actions that make `tool` stale: its configured `invalidatedBy`, else the seed defaults. */
export function invalidatingActions(tool: string, rule?: ToolRule): string[] {
  if (rule?.invalidatedBy) return [...rule.invalidatedBy];
  return Object.entries(DEFAULT_INVALIDATIONS)
    .filter(([, tools]) => tools.includes(tool))
    .map(([action]) => action);
}

export interface StoredToolTick {
  tool: string;
  tick: number | null;
}

/**
 * The stored tools an action marks stale. A snapshot taken after the action's tick already
 * shows its effect and stays fresh.
 */
export function toolsMarkedBy(
  action: string,
  actionTick: number | null,
  stored: StoredToolTick[],
  rules: Record<string, ToolRule>,
): string[] {
  return stored
    .filter((s) => invalidatingActions(s.tool, rules[s.tool]).includes(action))
    .filter((s) => actionTick === null || s.tick === null || s.tick <= actionTick)
    .map((s) => s.tool)
    .sort();
}

/**
 * True when a snapshot is more than `maxAgeTicks` behind: by ticks when both are known, else by
 * wall clock (maxAgeTicks × tickSeconds).
 */
export function isOverAge(
  snapshot: { tick: number | null; capturedAt: string },
  maxAgeTicks: number | null,
  currentTick: number | null,
  now: Date,
  tickSeconds: number,
): boolean {
  if (maxAgeTicks === null) return false;
  if (snapshot.tick !== null && currentTick !== null) return currentTick - snapshot.tick > maxAgeTicks;
  const ageSeconds = (now.getTime() - Date.parse(snapshot.capturedAt)) / 1000;
  return ageSeconds > maxAgeTicks * tickSeconds;
}
