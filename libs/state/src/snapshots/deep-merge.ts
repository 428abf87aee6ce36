/** A JSON object (not an array, not null). */
export type JsonObject = { [key: string]: unknown };

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface MergeResult {
  content: JsonObject;
  /** Dot paths of the leaves whose value the patch changed (arrays and scalars are leaves). */
  changed: string[];
}

/** Deep-merges `patch` into `base`: objects merge, arrays and scalars replace (pure; inputs untouched). */
export function deepMerge(base: JsonObject, patch: JsonObject): MergeResult {
  const changed: string[] = [];
  const content = mergeInto(base, patch, '', changed);
  return { content, changed };
}

function mergeInto(base: JsonObject, patch: JsonObject, prefix: string, changed: string[]): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const path = prefix ? `${prefix}.${key}` : key;
    // Own properties only: a patch key such as `constructor` is a new field, not Object's inherited one.
    const before = Object.hasOwn(base, key) ? base[key] : undefined;
    if (isJsonObject(value)) {
      if (isJsonObject(before)) {
        out[key] = mergeInto(before, value, path, changed);
      } else {
        out[key] = mergeInto({}, value, path, changed);
        // An object replacing a scalar: the old leaf is gone, even when the new object is empty.
        if (before !== undefined && Object.keys(value).length === 0) changed.push(path);
      }
    } else {
      out[key] = value;
      if (!sameJson(before, value)) changed.push(path);
    }
  }
  return out;
}

/** Keys (at every level) one merge may carry: 8,000 took 9 s before the prefix index; the cap bounds the rest. */
export const MAX_MERGE_KEYS = 10_000;

/** Number of object keys in `value` at every level, counting stops past `limit`; iterative for hostile depth. */
export function countKeys(value: unknown, limit = MAX_MERGE_KEYS): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length && n <= limit) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v)) n += Object.keys(v).length;
    for (const child of Object.values(v)) stack.push(child);
  }
  return n;
}

interface PathNode {
  children: Map<string, PathNode>;
  /** Set when this exact path has a tick. */
  tick?: number | null;
}

/**
 * Records `tick` for each changed path, forgetting paths that the change replaced or split (a path's ancestors and
 * descendants at `.` boundaries). A trie of dot segments makes it linear in the paths' length; comparing every
 * changed path with every stored one was quadratic.
 */
export function updateFieldTicks(
  fieldTicks: Record<string, number | null>,
  changed: string[],
  tick: number | null,
): Record<string, number | null> {
  const root: PathNode = { children: new Map() };
  const walk = (path: string, visit?: (node: PathNode) => void): PathNode => {
    let node = root;
    for (const segment of path.split('.')) {
      visit?.(node);
      let next = node.children.get(segment);
      if (!next) node.children.set(segment, (next = { children: new Map() }));
      node = next;
    }
    return node;
  };
  for (const [path, t] of Object.entries(fieldTicks)) walk(path).tick = t;
  for (const path of changed) {
    const node = walk(path, (ancestor) => delete ancestor.tick);
    node.children = new Map();
    node.tick = tick;
  }
  const out: Record<string, number | null> = {};
  const stack: Array<[PathNode, string | null]> = [[root, null]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (path !== null && node.tick !== undefined) out[path] = node.tick;
    for (const [segment, child] of node.children) stack.push([child, path === null ? segment : `${path}.${segment}`]);
  }
  return out;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
