/**
 * The first key that appears twice in one object of the JSON text `text`, or null. A single linear pass with an
 * explicit stack (hostile nesting cannot overflow it); only meaningful on valid JSON, which the parser checks after.
 */
export function findDuplicateKey(text: string): string | null {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
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
        const key = escaped ? decode(text.slice(i, j + 1)) : text.slice(i + 1, j);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push(null);
      expectKey = false;
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
