import {
  DefineTermInput,
  LocalSummarizer,
  LocationSummaryInput,
  NpcSummaryInput,
  RollingSummaryInput,
  Summarizer,
  SummaryResult,
  WorldSummaryInput,
} from '@app/summarizer';

export type Kind = 'location' | 'npc' | 'world' | 'rolling' | 'define';
export const KINDS: readonly Kind[] = ['location', 'npc', 'world', 'rolling', 'define'];

/** A closed gate: calls of its kinds wait (hang, like a stalled model) until `release()`. */
export interface Hold {
  readonly kinds: ReadonlySet<Kind>;
  /** Calls waiting at the gate right now. */
  readonly waiting: number;
  /** Resolves once at least `n` calls are waiting (default 1): the worker is mid-summary; rejects after `ms`. */
  reached(n?: number, ms?: number): Promise<void>;
  /** Opens the gate: every waiting call and every later one goes through. */
  release(): void;
}

/**
 * A scripted summarizer for tests: answers like the offline one, records every input it was given,
 * and fails the kinds listed in `failing` (each failing call throws, so the retry policy gives up).
 */
export class RecordingSummarizer implements Summarizer {
  readonly name = 'recording';
  readonly calls: { kind: Kind; input: any }[] = [];
  readonly failing = new Set<Kind>();
  private readonly local = new LocalSummarizer();
  private gate: GateImpl | null = null;

  /** `echo`: "Previously" repeats the messages' words, so a test can see what leaked into it. */
  /**
   * `scenes: 'echo'`: location, NPC and world memories repeat every message they were given (tokens counted as the
   * offline summarizer counts them), so a test sees exactly which lines a memory was built from.
   */
  constructor(
    private readonly rollingStyle: 'ranges' | 'echo' = 'ranges',
    private readonly scenes: 'local' | 'echo' = 'local',
  ) {}

  private scene(messages: { content: string }[], local: Promise<SummaryResult>): Promise<SummaryResult> {
    if (this.scenes === 'local') return local;
    return local.then((r) => ({ ...r, text: messages.map((m) => m.content).join(' ') || r.text }));
  }

  rolling(): RollingSummaryInput[] {
    return this.calls.filter((c) => c.kind === 'rolling').map((c) => c.input);
  }

  /** Calls per kind since the last `reset()` (all kinds, zero included). */
  counts(): Record<Kind, number> {
    const out = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    for (const c of this.calls) out[c.kind]++;
    return out;
  }

  /** Every call so far, whatever its kind. */
  total(): number {
    return this.calls.length;
  }

  /** Forgets the recorded calls (a gate stays as it is). */
  reset(): void {
    this.calls.length = 0;
  }

  /**
   * Makes every later call of `kinds` (default: all) hang until the returned gate is released; an aborted call
   * (the worker abandoning a fenced claim) rejects at once. One gate at a time: a new one releases the old.
   */
  hold(kinds: readonly Kind[] = KINDS): Hold {
    this.gate?.release();
    this.gate = new GateImpl(new Set(kinds));
    return this.gate;
  }

  private async run<I>(
    kind: Kind,
    input: I,
    answer: () => Promise<SummaryResult>,
    signal?: AbortSignal,
  ): Promise<SummaryResult> {
    this.calls.push({ kind, input: structuredClone(input) });
    const gate = this.gate;
    if (gate?.kinds.has(kind)) await gate.pass(signal);
    if (this.failing.has(kind)) throw new Error(`scripted ${kind} failure`);
    return answer();
  }

  summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal) {
    return this.run(
      'location',
      input,
      () => this.scene(input.messages, this.local.summarizeLocation(input, signal)),
      signal,
    );
  }
  summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal) {
    return this.run('npc', input, () => this.scene(input.messages, this.local.summarizeNpc(input, signal)), signal);
  }
  summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal) {
    return this.run('world', input, () => this.scene(input.messages, this.local.summarizeWorld(input, signal)), signal);
  }
  /** "Previously" that says which messages it covered, so tests can read the chain. */
  summarizeRolling(input: RollingSummaryInput, signal?: AbortSignal) {
    return this.run(
      'rolling',
      input,
      async () => {
        if (this.rollingStyle === 'echo')
          return {
            text: [input.previousSummary ?? '', ...input.messages.map((m) => m.content)].join(' ').trim(),
            inputTokens: 10,
            outputTokens: 10,
          };
        const covered = `messages ${input.messages[0].index}-${input.messages[input.messages.length - 1].index}`;
        const text = `${input.previousSummary ? `${input.previousSummary} ` : ''}Then ${covered}${input.viewer ? ` for ${input.viewer}` : ''}.`;
        return { text, inputTokens: 10, outputTokens: 10 };
      },
      signal,
    );
  }
  defineTerm(input: DefineTermInput, signal?: AbortSignal) {
    return this.run('define', input, () => this.local.defineTerm(input, signal), signal);
  }
}

class GateImpl implements Hold {
  private open = false;
  private readonly waiters = new Set<() => void>();
  private readonly watchers: { n: number; resolve(): void }[] = [];
  constructor(readonly kinds: ReadonlySet<Kind>) {}

  get waiting(): number {
    return this.waiters.size;
  }

  reached(n = 1, ms = 15_000): Promise<void> {
    if (this.waiters.size >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // A test waiting for a call that never comes says so, instead of running into jest's timeout.
      const timer = setTimeout(() => reject(new Error(`no ${n} held call(s) within ${ms} ms`)), ms);
      this.watchers.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  release(): void {
    this.open = true;
    for (const go of [...this.waiters]) go();
    this.waiters.clear();
  }

  pass(signal?: AbortSignal): Promise<void> {
    if (this.open) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.waiters.delete(go);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      this.waiters.add(go);
      for (const w of this.watchers.filter((x) => this.waiters.size >= x.n)) {
        this.watchers.splice(this.watchers.indexOf(w), 1);
        w.resolve();
      }
    });
  }
}
