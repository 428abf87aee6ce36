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

/** Records `tick` for each changed path, forgetting paths that the change replaced or split. */
export function updateFieldTicks(fieldTicks: Record<string, number | null>, changed: string[], tick: number | null): Record<string, number | null> {
  const out = { ...fieldTicks };
  for (const path of changed) {
    for (const k of Object.keys(out)) if (k.startsWith(`${path}.`) || path.startsWith(`${k}.`)) delete out[k];
    out[path] = tick;
  }
  return out;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
