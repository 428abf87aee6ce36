import {
  MockAnthropic,
  MockAnthropicResponse,
  startMockAnthropic,
  transcriptOf,
} from '../../../test/support/mock-anthropic';
import { AnthropicSummarizer } from './anthropic.summarizer';
import { ContractAnswer, summarizerContract } from './testing/summarizer.contract';
import { LocationSummaryInput } from './summarizer.port';

const API_KEY = 'sk-ant-api03-TESTKEY-must-never-leak';

/** The contract's provider-neutral answers as the Messages API mock serves them. */
export function anthropicAnswer(answer: ContractAnswer): MockAnthropicResponse {
  if ('status' in answer) {
    const headers = answer.retryAfter ? { 'retry-after': answer.retryAfter } : undefined;
    const body = answer.message
      ? {
          type: 'error',
          error: { type: answer.status === 401 ? 'authentication_error' : 'api_error', message: answer.message },
        }
      : undefined;
    return { status: answer.status, headers, body };
  }
  if ('garbage' in answer) return { raw: '{"type":"message","content":[{"type":"te' };
  if ('noText' in answer) return { content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }] };
  return answer;
}

const userTurn = (body: any): string => body.messages[body.messages.length - 1].content;
const systemText = (body: any): string =>
  Array.isArray(body.system) ? body.system.map((b: any) => b.text).join('\n') : String(body.system ?? '');

summarizerContract('anthropic (mock Messages API)', async () => {
  const mock = await startMockAnthropic();
  return {
    summarizer: new AnthropicSummarizer({ apiKey: API_KEY, baseURL: mock.baseUrl }),
    remote: {
      script: (...answers) => mock.setHandler((_b, n) => anthropicAnswer(answers[Math.min(n, answers.length - 1)])),
      requests: () => mock.requests,
      delivered: () => ({ ...mock.delivered }),
      reset: () => mock.reset(),
      systemOf: systemText,
      userTurnOf: userTurn,
      transcriptOf,
      apiKey: API_KEY,
    },
    close: () => mock.close(),
  };
});

const input: LocationSummaryInput = {
  campaignId: 'c1',
  location: { id: 'loc-anchor', name: 'The Rusty Anchor' },
  messages: [{ index: 0, role: 'dm', speaker: null, content: 'We enter the tavern.', at: '2026-01-01T10:00:00.000Z' }],
};

describe('AnthropicSummarizer: what only the Messages API has', () => {
  let mock: MockAnthropic;
  let summarizer: AnthropicSummarizer;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    summarizer = new AnthropicSummarizer({ apiKey: API_KEY, baseURL: mock.baseUrl });
  });
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('marks the fixed instructions for prompt caching; counts the cache write, then the read, apart', async () => {
    const first = await summarizer.summarizeLocation(input);
    const second = await summarizer.summarizeLocation({
      ...input,
      messages: [{ ...input.messages[0], content: 'We leave.' }],
    });
    const { body, headers } = mock.requests[0];
    expect(headers['x-api-key'] ?? headers.authorization).toBeDefined();
    expect(body.system).toEqual([
      { type: 'text', text: expect.stringMatching(/never instructions/), cache_control: { type: 'ephemeral' } },
    ]);
    // The message text stays out of the cached block: it is in the user turn only.
    expect(JSON.stringify(body.system)).not.toContain('We enter the tavern');
    expect(first.cacheWriteTokens).toBeGreaterThan(0);
    expect(first.cacheReadTokens).toBe(0);
    expect(second.cacheReadTokens).toBe(first.cacheWriteTokens);
    expect(second.cacheWriteTokens).toBe(0);
    expect(second.inputTokens).toBeGreaterThan(second.cacheReadTokens!);
  });

  it('concatenates text blocks, ignores other blocks, and reports usage tokens', async () => {
    mock.setHandler(() => ({
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Mira is owed ', citations: null },
        { type: 'text', text: '30 gold.', citations: null },
      ],
    }));
    expect((await summarizer.summarizeLocation(input)).text).toBe('Mira is owed 30 gold.');
    mock.setHandler(() => ({
      text: 'Counted.',
      usage: { input_tokens: 321, output_tokens: 12, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    }));
    expect(await summarizer.summarizeLocation(input)).toMatchObject({
      text: 'Counted.',
      inputTokens: 428,
      outputTokens: 12,
      cacheReadTokens: 100,
      cacheWriteTokens: 7,
    });
  });

  it('turns a non-JSON page (a proxy error) into a clear failure', async () => {
    mock.setHandler(() => ({ raw: '<html>Bad gateway</html>', contentType: 'text/html' }));
    await expect(summarizer.summarizeLocation(input)).rejects.toThrow(
      /unexpected response: not a Messages API message/,
    );
  });

  it('uses the configured model and output budget', async () => {
    const custom = new AnthropicSummarizer({
      apiKey: API_KEY,
      baseURL: mock.baseUrl,
      model: 'claude-sonnet-5-5',
      maxOutputTokens: 99,
    });
    await custom.summarizeLocation(input);
    expect(mock.requests[0].body).toMatchObject({ model: 'claude-sonnet-5-5', max_tokens: 99 });
  });
});
