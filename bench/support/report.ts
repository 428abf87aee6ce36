import { Figures } from './bench-suite';

type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Numbers for humans: thousands separated, at most 3 decimals. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'n/a';
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : Math.abs(v) >= 1 ? 2 : 3;
    return v.toLocaleString('en-US', { maximumFractionDigits: digits });
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** A plain-text table with a header line; numbers right-aligned. */
export function table(rows: Row[], columns?: string[]): string {
  if (rows.length === 0) return '  (no rows)';
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => cols.map((c) => formatValue(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const numeric = cols.map((c) => rows.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'));
  const line = (values: string[]) =>
    '  ' +
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(cols), '  ' + widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/**
 * Renders a suite's figures generically, so a new suite prints without touching the runner:
 * scalars as one key/value table, arrays of rows and objects of rows as tables, `notes` as lines.
 */
export function renderFigures(figures: Figures): string {
  const out: string[] = [];
  const scalars: Row[] = [];
  for (const [key, value] of Object.entries(figures)) {
    if (key === 'notes') continue;
    if (isScalar(value)) scalars.push({ figure: key, value: formatValue(value) });
    else if (Array.isArray(value) && value.every(isRow)) out.push(`  ${key}:`, table(value));
    else if (Array.isArray(value) && value.every(isScalar))
      scalars.push({ figure: key, value: value.map(formatValue).join(', ') });
    else if (isRow(value) && Object.values(value).every(isRow))
      out.push(`  ${key}:`, table(Object.entries(value).map(([k, r]) => ({ [key]: k, ...(r as Row) }))));
    else if (isRow(value) && Object.values(value).every(isScalar))
      out.push(`  ${key}:`, table(Object.entries(value).map(([k, v]) => ({ figure: k, value: formatValue(v) }))));
    else if (isRow(value)) out.push(`  ${key}:`, renderFigures(value).replace(/^/gm, '  '));
    else out.push(`  ${key}: ${JSON.stringify(value)}`);
  }
  if (scalars.length) out.unshift(table(scalars, ['figure', 'value']));
  const notes = figures.notes;
  if (Array.isArray(notes) && notes.length) out.push(...notes.map((n) => `  * ${String(n)}`));
  return out.join('\n');
}
