import { TiktokenCounter } from '@app/context';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerRecall, wordSet } from './locomo/answer-recall';
import { loadLocomo, locomoPath, LocomoSample, LocomoSession, sessionsOf, turnText } from './locomo/locomo-data';
import { BenchOptions, Figures } from './support/bench-suite';
import { HttpClient } from './support/http-client';
import { repoRoot, tempDir } from './support/paths';
import { localServiceEnv, spawnServer } from './support/service-process';
import { mean, round } from './support/stats';

const LIMITS = [3, 10, 30];
const LAST_N = 20;
const CATEGORIES = [1, 2, 3, 4];
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

const slug = (name: string) =>
  `npc-${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'x'
  }`;

/** A transcript the way a prompt would hold it: a date line per session, then "Speaker: text". */
function renderTranscript(sessions: LocomoSession[]): string {
  return sessions
    .map((s) => [`[${s.dateText}]`, ...s.turns.map((t) => `${t.speaker}: ${turnText(t)}`)].join('\n'))
    .join('\n\n');
}

/** The last n turns with their sessions' date lines. */
function lastTurns(sessions: LocomoSession[], n: number): LocomoSession[] {
  const out: LocomoSession[] = [];
  let left = n;
  for (let i = sessions.length - 1; i >= 0 && left > 0; i--) {
    const turns = sessions[i].turns.slice(Math.max(0, sessions[i].turns.length - left));
    left -= turns.length;
    out.unshift({ ...sessions[i], turns });
  }
  return out;
}

/**
 * Replays one conversation as a campaign: each session a scene at its own location (change-location
 * between sessions), the two speakers as NPCs who travel with the party, turns as messages at the
 * session's date, and a world event (progress-act) when each session ends.
 */
export async function replay(http: HttpClient, sample: LocomoSample, sessions: LocomoSession[]): Promise<string> {
  const cid = `locomo-${sample.sample_id}`.replace(/[^A-Za-z0-9._:-]/g, '-');
  const base = `/v1/campaigns/${cid}`;
  const speakers = [sample.conversation.speaker_a, sample.conversation.speaker_b];
  await http.post('/v1/campaigns', { id: cid, name: `LoCoMo ${sample.sample_id}` });
  const moveAll = async (locationId: string) => {
    for (const name of speakers) await http.put(`${base}/npcs/${slug(name)}`, { name, locationId });
  };
  for (const s of sessions) {
    await http.put(`${base}/locations/s${s.n}`, { name: `Session ${s.n}` });
    // Move first: the speakers must still be at the session they leave, so they get its NPC memories.
    await http.post(`${base}/commands/change-location`, { toLocationId: `s${s.n}` });
    await moveAll(`s${s.n}`);
    const messages = s.turns.map((t) => {
      const known = speakers.includes(t.speaker);
      return {
        role: 'npc',
        speaker: t.speaker,
        content: turnText(t),
        npcIds: known ? [slug(t.speaker)] : [],
        at: s.at,
      };
    });
    for (let i = 0; i < messages.length; i += 500)
      await http.post(`${base}/messages`, { messages: messages.slice(i, i + 500) });
    await http.post(`${base}/commands/progress-act`, { actId: `after-session-${s.n}` });
  }
  await http.put(`${base}/locations/afterwards`, { name: 'Afterwards' });
  await http.post(`${base}/commands/change-location`, { toLocationId: 'afterwards' });
  await moveAll('afterwards');
  return cid;
}

/** §5 LoCoMo recall: does what Lorekeeper serves the narrative agent contain the answers, and at what token cost. */
export async function runLocomoBench(options: BenchOptions): Promise<Figures> {
  const path = locomoPath(repoRoot());
  const data = loadLocomo(path);
  if (!data) return { skipped: `LoCoMo data not found at ${path} (set LOCOMO_PATH); nothing measured` };
  const samples = data.slice(0, options.quick ? 1 : data.length);
  const realModel = Boolean(process.env.ANTHROPIC_API_KEY) && process.env.SUMMARIZER !== 'local';
  const tmp = tempDir('locomo');
  const counter = new TiktokenCounter();
  const strategies = [
    ...LIMITS.map((l) => `lorekeeper limit=${l}`),
    'full transcript',
    `last ${LAST_N} messages`,
    'evidence turns (ceiling)',
  ];
  // per strategy, per category: recalls; per strategy: tokens per QA
  const recalls = new Map<string, Map<number, number[]>>(
    strategies.map((s) => [s, new Map(CATEGORIES.map((c) => [c, []]))]),
  );
  const tokens = new Map<string, number[]>(strategies.map((s) => [s, []]));
  let qaCount = 0;
  try {
    const service = await spawnServer({
      dir: tmp.path,
      env: realModel
        ? { DATABASE_URL: `sqlite:${join(tmp.path, 'lorekeeper.db')}` }
        : localServiceEnv(join(tmp.path, 'lorekeeper.db')),
      keepAnthropicEnv: realModel,
    });
    try {
      const http = new HttpClient(service.url);
      for (const sample of samples) {
        const sessions = sessionsOf(sample);
        const cid = await replay(http, sample, sessions);
        await http.settled(cid, realModel ? 1_800_000 : 300_000);
        const served = new Map<string, string>();
        for (const l of LIMITS)
          served.set(`lorekeeper limit=${l}`, await http.text(`/v1/campaigns/${cid}/context?format=text&limit=${l}`));
        served.set('full transcript', renderTranscript(sessions));
        served.set(`last ${LAST_N} messages`, renderTranscript(lastTurns(sessions, LAST_N)));
        if (process.env.BENCH_KEEP)
          for (const [k, text] of served) writeFileSync(join(tmp.path, `${cid} ${k}.txt`), text);
        const words = new Map([...served].map(([k, text]) => [k, wordSet(text)]));
        const counts = new Map([...served].map(([k, text]) => [k, counter.count(text)]));
        const turns = new Map(
          sessions.flatMap((s) =>
            s.turns.map((t) => [t.dia_id, `${t.speaker}: ${turnText(t)} ${s.dateText}`] as const),
          ),
        );
        for (const qa of sample.qa) {
          if (!CATEGORIES.includes(qa.category) || qa.answer === undefined || qa.answer === null) continue;
          const answer = String(qa.answer);
          const evidence = qa.evidence.map((e) => turns.get(e) ?? '').join('\n');
          if (answerRecall(answer, wordSet(evidence)) === null) continue; // no content words: nothing to find
          qaCount += 1;
          for (const s of strategies) {
            const isEvidence = s === 'evidence turns (ceiling)';
            recalls
              .get(s)!
              .get(qa.category)!
              .push(answerRecall(answer, isEvidence ? wordSet(evidence) : words.get(s)!)!);
            tokens.get(s)!.push(isEvidence ? counter.count(evidence) : counts.get(s)!);
          }
        }
      }
    } finally {
      await service.stop();
    }
  } finally {
    tmp.cleanup();
  }
  const pct = (xs: number[]) => round(100 * mean(xs), 1);
  const rows = strategies.map((s) => {
    const byCat = recalls.get(s)!;
    const all = CATEGORIES.flatMap((c) => byCat.get(c)!);
    return {
      strategy: s,
      'mean tokens': round(mean(tokens.get(s)!)),
      'recall %': pct(all),
      ...Object.fromEntries(CATEGORIES.map((c) => [`${c} ${CATEGORY_NAMES[c]} %`, pct(byCat.get(c)!)])),
      'fully covered %': round((100 * all.filter((r) => r === 1).length) / Math.max(1, all.length), 1),
    };
  });
  const best = rows.find((r) => r.strategy === `lorekeeper limit=${LIMITS[0]}`)!;
  const full = rows.find((r) => r.strategy === 'full transcript')!;
  return {
    conversations: samples.length,
    'questions (categories 1–4 with content words)': qaCount,
    summarizer: realModel ? `anthropic (${process.env.ANTHROPIC_MODEL ?? 'claude-haiku-4-5'})` : 'local (offline)',
    [`lorekeeper limit=${LIMITS[0]}: recall / full-transcript recall`]: round(best['recall %'] / full['recall %'], 3),
    [`lorekeeper limit=${LIMITS[0]}: tokens / full-transcript tokens`]: round(
      best['mean tokens'] / full['mean tokens'],
      3,
    ),
    strategies: rows,
    notes: [
      `data: ${path} (read in place, never copied); probe = share of the gold answer's content words (lower-cased alphanumeric minus stop words) present in the served text`,
      'lorekeeper = GET /v1/campaigns/:id/context?format=text&limit=N (narrative agent) after the worker settled, the party and both speakers at a final "Afterwards" location',
      'evidence turns (ceiling) = the gold evidence turns plus their session date: the README reports 72.8 % for its own stop-word list; photo captions are part of the turn text everywhere',
    ],
  };
}
