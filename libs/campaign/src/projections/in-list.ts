/** Most values one `IN (…)` binds: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

/** `?, ?, …`: n bound-parameter marks. */
export const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** `list` in slices of at most CHUNK values, each one `IN (…)`. */
export function chunks<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}
