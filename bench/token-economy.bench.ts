import { TiktokenCounter } from '@app/context';
import { join } from 'node:path';
import { startMockAnthropic, transcriptOf } from '../test/support/mock-anthropic';
import { BenchOptions, Figures } from './support/bench-suite';
import { HttpClient } from './support/http-client';
import { tempDir } from './support/paths';
import { mockedAnthropicEnv, spawnServer } from './support/service-process';
import { ALIASES, LOCATION_NAMES, NPC_NAMES, nthName, rng, storyLine } from './support/story-text';
import { ratio, round } from './support/stats';

const CID = 'saga';

/** Which summarizer task a request is, from its system prompt (libs/summarizer/src/summary-prompts.ts). */
export function scopeOfPrompt(system: string): string {
  if (/at the location named in <subject>/.test(system)) return 'location';
  if (/memory of the NPC named in <subject>/.test(system)) return 'npc';
  if (/consequence for the game world/.test(system)) return 'world';
  if (/"previously on" recap/.test(system)) return 'rolling summary';
  if (/Define the term/.test(system)) return 'glossary';
  return 'other';
}

interface Posted {
  index: number;
  locationId: string;
  tokens: number;
}

/** Plays a long scripted campaign over HTTP; returns every message it posted with its token count. */
async function playSaga(
  http: HttpClient,
  scenes: number,
  counter: TiktokenCounter,
): Promise<{ posted: Posted[]; worldEvents: number; moves: number }> {
  const random = rng(7);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const locations = Array.from({ length: 10 }, (_, i) => ({ id: `loc-${i}`, name: nthName(LOCATION_NAMES, i) }));
  const npcs = Array.from({ length: 16 }, (_, i) => ({
    id: `npc-${i}`,
    name: nthName(NPC_NAMES, i),
    aliases: i < ALIASES.length ? [ALIASES[i]] : [],
    at: locations[i % 10].id,
  }));
  const base = `/v1/campaigns/${CID}`;
  await http.post('/v1/campaigns', { id: CID, name: 'The long saga' });
  for (const l of locations) await http.put(`${base}/locations/${l.id}`, { name: l.name, dangerLevel: 'HIGH' });
  for (const n of npcs) await http.put(`${base}/npcs/${n.id}`, { name: n.name, aliases: n.aliases, locationId: n.at });
  let quest = 0;
  let objectivesDone = 0;
  const newQuest = async () => {
    quest += 1;
    objectivesDone = 0;
    await http.put(`${base}/quests/q-${quest}`, {
      name: `The Hidden Bell ${quest}`,
      objectives: [1, 2, 3].map((o) => ({ id: `o-${o}`, name: `Find clue ${o}` })),
    });
  };
  await newQuest();
  const posted: Posted[] = [];
  let here: string | null = null;
  let worldEvents = 0;
  let act = 0;
  let encounter = 0;
  const cleared = new Set<string>();
  for (let scene = 0; scene < scenes; scene++) {
    if (random() < 0.4) {
      const n = pick(npcs);
      n.at = pick(locations).id;
      await http.put(`${base}/npcs/${n.id}`, { name: n.name, aliases: n.aliases, locationId: n.at });
    }
    const options = locations.filter((l) => l.id !== here && npcs.some((n) => n.at === l.id));
    const to = (options.length ? pick(options) : pick(locations.filter((l) => l.id !== here))).id;
    await http.post(`${base}/commands/change-location`, { toLocationId: to });
    here = to;
    const present = npcs.filter((n) => n.at === to);
    const count = 8 + Math.floor(random() * 23);
    const messages = Array.from({ length: count }, (_, k) => {
      const npc = present.length ? pick(present) : pick(npcs);
      const named = k % 5 === 4 && npc.aliases.length ? npc.aliases[0] : npc.name;
      const role = k % 3 === 0 ? 'dm' : k % 3 === 1 ? 'player' : 'npc';
      return {
        role,
        speaker: role === 'dm' ? undefined : role === 'player' ? 'Aria' : npc.name,
        content: storyLine(random, named, locations.find((l) => l.id === to)!.name),
      };
    });
    const res = await http.post(`${base}/messages`, { messages });
    (res.indexes as number[]).forEach((index, k) =>
      posted.push({ index, locationId: to, tokens: counter.count(messages[k].content) }),
    );
    if (scene % 3 === 2) {
      worldEvents += 1;
      const kind = (scene / 3) % 4;
      if (kind < 1) {
        act += 1;
        await http.post(`${base}/commands/progress-act`, { actId: `act-${act}` });
      } else if (kind < 2) {
        objectivesDone += 1;
        await http.post(`${base}/commands/complete-objective`, {
          questId: `q-${quest}`,
          objectiveId: `o-${objectivesDone}`,
        });
        if (objectivesDone === 3) {
          await http.post(`${base}/commands/complete-quest`, { questId: `q-${quest}` });
          worldEvents += 1;
          await newQuest();
        }
      } else if (kind < 3 || cleared.has(to)) {
        encounter += 1;
        await http.post(`${base}/commands/update-location-state`, {
          locationId: to,
          completeEncounter: `enc-${encounter}`,
        });
      } else {
        cleared.add(to);
        await http.post(`${base}/commands/update-location-state`, { locationId: to, dangerLevel: 'CLEARED' });
      }
    }
  }
  return { posted, worldEvents, moves: scenes };
}

/** §4 Token economy: input tokens the summarizer received per scope ÷ tokens of the messages in that scope. */
export async function runTokenEconomyBench(options: BenchOptions): Promise<Figures> {
  const scenes = options.quick ? 12 : 150;
  const tmp = tempDir('tokens');
  const mock = await startMockAnthropic();
  const counter = new TiktokenCounter();
  try {
    const service = await spawnServer({
      dir: tmp.path,
      env: mockedAnthropicEnv(join(tmp.path, 'lorekeeper.db'), mock.baseUrl),
    });
    let played;
    try {
      const http = new HttpClient(service.url);
      played = await playSaga(http, scenes, counter);
      await http.settled(CID);
    } finally {
      await service.stop();
    }
    const messageTokens = played.posted.reduce((n, m) => n + m.tokens, 0);
    type Acc = {
      calls: number;
      prompt: number;
      content: number;
      rendered: number;
      merged: number;
      lines: number;
      duplicates: number;
      covered: Set<number>;
    };
    const scopes = new Map<string, Acc>();
    const seen = new Map<string, Set<number>>();
    for (const req of mock.requests) {
      // The system prompt is one cache-marked block (prompt caching) or, from older clients, a string.
      const system = Array.isArray(req.body.system)
        ? req.body.system.map((b: { text?: string }) => b.text ?? '').join('\n')
        : String(req.body.system ?? '');
      const user = String(req.body.messages?.[0]?.content ?? '');
      const scope = scopeOfPrompt(system);
      const subject = /<subject>\n(.*)\n<\/subject>/.exec(user)?.[1] ?? '';
      const acc = scopes.get(scope) ?? {
        calls: 0,
        prompt: 0,
        content: 0,
        rendered: 0,
        merged: 0,
        lines: 0,
        duplicates: 0,
        covered: new Set<number>(),
      };
      scopes.set(scope, acc);
      acc.calls += 1;
      acc.prompt += counter.count(system) + counter.count(user);
      const key = `${scope} ${subject}`;
      const already = seen.get(key) ?? new Set<number>();
      seen.set(key, already);
      const raw =
        /<transcript>\n([\s\S]*?)\n?<\/transcript>/
          .exec(user)?.[1]
          .split('\n')
          .filter((l) => l.trim()) ?? [];
      for (const [n, line] of transcriptOf(req.body).entries()) {
        const tokens = counter.count(line.text);
        acc.rendered += counter.count(`${raw[n]}\n`);
        if (line.role === 'summary') {
          acc.merged += tokens;
          continue;
        }
        acc.content += tokens;
        acc.lines += 1;
        if (already.has(line.i)) acc.duplicates += 1;
        already.add(line.i);
        acc.covered.add(line.i);
      }
    }
    const rows = [...scopes.entries()].map(([scope, a]) => ({
      scope,
      calls: a.calls,
      'messages sent': a.lines,
      'message tokens sent': a.content,
      'ratio content/scope': ratio(a.content, messageTokens),
      'prompt tokens (all framing)': a.prompt,
      'ratio prompt/scope': ratio(a.prompt, messageTokens),
      'fixed framing tokens/call': round((a.prompt - a.rendered) / a.calls),
      'JSON overhead tokens/line': round((a.rendered - a.content - a.merged) / Math.max(1, a.lines)),
      'merge-summary tokens': a.merged,
      'sent twice (same subject)': a.duplicates,
      'messages never sent': played.posted.filter((m) => !a.covered.has(m.index)).length,
    }));
    const get = (scope: string) => rows.find((r) => r.scope === scope);
    const unsent = (scope: string) =>
      played.posted.filter((m) => !scopes.get(scope)?.covered.has(m.index)).map((m) => m.index);
    const lastScene = played.posted.filter(
      (m) =>
        m.locationId === played.posted[played.posted.length - 1].locationId &&
        m.index >
          Math.max(
            ...played.posted
              .filter((p) => p.locationId !== played.posted[played.posted.length - 1].locationId)
              .map((p) => p.index),
          ),
    );
    return {
      'location: message tokens sent / message tokens (target ≤ 1.0)': get('location')?.['ratio content/scope'] ?? NaN,
      'world: message tokens sent / message tokens (target ≤ 1.0)': get('world')?.['ratio content/scope'] ?? NaN,
      'npc windows: message tokens sent / message tokens (overlap by design)':
        get('npc')?.['ratio content/scope'] ?? NaN,
      'location: with prompt framing': get('location')?.['ratio prompt/scope'] ?? NaN,
      'world: with prompt framing': get('world')?.['ratio prompt/scope'] ?? NaN,
      'messages sent twice for one subject (all scopes)': rows.reduce((n, r) => n + r['sent twice (same subject)'], 0),
      campaign: {
        scenes,
        moves: played.moves,
        'world events': played.worldEvents,
        messages: played.posted.length,
        'message tokens': messageTokens,
      },
      scopes: rows,
      notes: [
        'tokens: o200k_base via gpt-tokenizer (libs/context TiktokenCounter) over what the mock received from the real AnthropicSummarizer',
        'content ratio counts only the `text` of transcript lines (each message against its own tokens); it excludes the framing: system prompt, data notice, <subject>, task restatement and the JSON keys of each line',
        `framing is shown separately: prompt ratio (everything sent), fixed framing per call, and the JSON keys per transcript line; location messages never sent = the scene the party is still in (${lastScene.length} messages) — it is summarized when the party leaves; world: the messages after the last world event (${unsent('world').length})`,
        'NPC windows overlap (several NPCs witness the same messages, and neighbours of mentions repeat per NPC), so their ratio is reported, not targeted; within one NPC nothing is sent twice',
      ],
    };
  } finally {
    await mock.close();
    tmp.cleanup();
  }
}
