import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MONTH_NAMES } from '@app/context';

/** One turn of a LoCoMo conversation. */
export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface LocomoQa {
  question: string;
  answer?: string | number | null;
  evidence: string[];
  category: number;
}

export interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: LocomoQa[];
}

export interface LocomoSession {
  n: number;
  /** As written in the data, e.g. "1:56 pm on 8 May, 2023". */
  dateText: string;
  /** The same moment as ISO, for message `at`. */
  at: string;
  turns: LocomoTurn[];
}

/** Where the data lives: LOCOMO_PATH, else ../shared/eval/locomo10.json next to the repository. */
export const locomoPath = (repoRoot: string): string =>
  process.env.LOCOMO_PATH ?? resolve(repoRoot, '../shared/eval/locomo10.json');

/** Reads the data set in place (it is CC BY-NC evaluation data: never copied into the project); null when absent. */
export function loadLocomo(path: string): LocomoSample[] | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
}

const MONTHS = MONTH_NAMES.map((m) => m.toLowerCase());

/** "1:56 pm on 8 May, 2023" → 2023-05-08T13:56:00.000Z (the data has no time zone; UTC is as good as any). */
export function parseSessionDate(text: string): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) throw new Error(`unreadable LoCoMo session date "${text}"`);
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) throw new Error(`unknown month in "${text}"`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** The sample's sessions in order, empty ones left out. */
export function sessionsOf(sample: LocomoSample): LocomoSession[] {
  const c = sample.conversation;
  return Object.keys(c)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
    .map((n) => {
      const dateText = String(c[`session_${n}_date_time`] ?? '');
      return { n, dateText, at: parseSessionDate(dateText), turns: (c[`session_${n}`] as LocomoTurn[]) ?? [] };
    })
    .filter((s) => s.turns.length > 0);
}

/** A turn as posted and as the baselines show it: its text plus the shared photo's caption, if any. */
export const turnText = (t: LocomoTurn): string => (t.blip_caption ? `${t.text} [shares ${t.blip_caption}]` : t.text);
