import type { WordingId } from './search-index.port';

/**
 * Where the adapters keep a memory's wordings (§10), hidden behind the port: a recorded or revised wording's row id is
 * its memory-stream version, a DM correction's CORRECTION_ROWS + its game version — above every memory-stream version,
 * unique per game version — so as-of bounds and fork copies are two ranges of row ids (rows through M(V), corrections
 * through V).
 */
export const CORRECTION_ROWS = 2 ** 30;

/** A wording's row id. */
export const wordingRow = (w: WordingId): number =>
  w.source === 'correction' ? CORRECTION_ROWS + w.version : w.version;

/** The wording a row id holds. */
export const wordingOfRow = (row: number): WordingId =>
  row >= CORRECTION_ROWS
    ? { source: 'correction', version: row - CORRECTION_ROWS }
    : { source: 'memory', version: row };

/**
 * The largest bound a statement binds for a row id: PostgreSQL types a parameter compared with an `integer` column as
 * int4, so "no bound" is clamped to int4's maximum.
 */
const INT4_MAX = 2_147_483_647;
export const rowBound = (n: number): number => Math.min(n, INT4_MAX);
