/** What a linear scan of a JSON text finds wrong before it is parsed (§13: bodies are refused while they are read). */
export type JsonShapeIssue =
  { kind: 'duplicate'; key: string } | { kind: 'depth'; max: number; path: string } | { kind: 'keys'; max: number };

export interface JsonShapeLimits {
  /** Values of the body nested deeper than this (the body itself is level 0) are refused. */
  maxDepth: number;
  /** More keys than this inside the body's fields, all objects together, are refused (MAX_JSON_KEYS). */
  maxKeys: number;
}

/**
 * The first problem of the JSON text `text`: a key twice in one object, nesting past `maxDepth`, or more than `maxKeys`
 * keys; null when none. A single linear pass with an explicit stack (hostile nesting cannot overflow it) that stops at
 * the first problem, so a refused body costs no full parse; only meaningful on valid JSON, which the parser checks
 * after.
 */
export function scanJsonShape(text: string, limits: JsonShapeLimits): JsonShapeIssue | null {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  let keyCount = 0;
  // The body's field being read: a refusal for depth names it, as the schema would.
  let field = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let escaped = false;
      while (j < text.length) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) {
          escaped = true;
          j += 2;
        } else if (d === 0x22) break;
        else j++;
      }
      const keys = stack.length ? stack[stack.length - 1] : null;
      if (keys && expectKey) {
        // The body's own fields are its envelope (the schema bounds them): what they hold is counted.
        if (stack.length > 1 && ++keyCount > limits.maxKeys) return { kind: 'keys', max: limits.maxKeys };
        const key = escaped ? decode(text.slice(i, j + 1)) : text.slice(i + 1, j);
        if (keys.has(key)) return { kind: 'duplicate', key };
        if (stack.length === 1) field = key;
        keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (stack.length > limits.maxDepth) return { kind: 'depth', max: limits.maxDepth, path: field };
      stack.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = stack.length > 0 && stack[stack.length - 1] !== null;
    }
  }
  return null;
}

/** `"a\u0062"` → `ab`; a malformed escape is left for the JSON parser to refuse. */
function decode(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted;
  }
}
