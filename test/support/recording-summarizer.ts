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

type Kind = 'location' | 'npc' | 'world' | 'rolling' | 'define';

/**
 * A scripted summarizer for tests: answers like the offline one, records every input it was given,
 * and fails the kinds listed in `failing` (each failing call throws, so the retry policy gives up).
 */
export class RecordingSummarizer implements Summarizer {
  readonly name = 'recording';
  readonly calls: { kind: Kind; input: any }[] = [];
  readonly failing = new Set<Kind>();
  private readonly local = new LocalSummarizer();

  /** `echo`: "Previously" repeats the messages' words, so a test can see what leaked into it. */
  constructor(private readonly rollingStyle: 'ranges' | 'echo' = 'ranges') {}

  rolling(): RollingSummaryInput[] {
    return this.calls.filter((c) => c.kind === 'rolling').map((c) => c.input);
  }

  private async run<I>(kind: Kind, input: I, answer: () => Promise<SummaryResult>): Promise<SummaryResult> {
    this.calls.push({ kind, input: structuredClone(input) });
    if (this.failing.has(kind)) throw new Error(`scripted ${kind} failure`);
    return answer();
  }

  summarizeLocation(input: LocationSummaryInput, signal?: AbortSignal) {
    return this.run('location', input, () => this.local.summarizeLocation(input, signal));
  }
  summarizeNpc(input: NpcSummaryInput, signal?: AbortSignal) {
    return this.run('npc', input, () => this.local.summarizeNpc(input, signal));
  }
  summarizeWorld(input: WorldSummaryInput, signal?: AbortSignal) {
    return this.run('world', input, () => this.local.summarizeWorld(input, signal));
  }
  /** "Previously" that says which messages it covered, so tests can read the chain. */
  summarizeRolling(input: RollingSummaryInput, _signal?: AbortSignal) {
    return this.run('rolling', input, async () => {
      if (this.rollingStyle === 'echo')
        return {
          text: [input.previousSummary ?? '', ...input.messages.map((m) => m.content)].join(' ').trim(),
          inputTokens: 10,
          outputTokens: 10,
        };
      const covered = `messages ${input.messages[0].index}-${input.messages[input.messages.length - 1].index}`;
      const text = `${input.previousSummary ? `${input.previousSummary} ` : ''}Then ${covered}${input.viewer ? ` for ${input.viewer}` : ''}.`;
      return { text, inputTokens: 10, outputTokens: 10 };
    });
  }
  defineTerm(input: DefineTermInput, signal?: AbortSignal) {
    return this.run('define', input, () => this.local.defineTerm(input, signal));
  }
}
