import { MockOpenAi, MockOpenAiResponse, startMockOpenAi, transcriptOf } from '../../../test/support/mock-openai';
import { OpenAiSummarizer } from './openai.summarizer';
import { LocationSummaryInput } from './summarizer.port';
import { ContractAnswer, summarizerContract } from './testing/summarizer.contract';

const API_KEY = 'sk-proj-TESTKEY-openai-must-never-leak';

/** The contract's provider-neutral answers as the Chat Completions mock serves them. */
function openAiAnswer(answer: ContractAnswer): MockOpenAiResponse {
  if ('status' in answer) {
    const headers = answer.retryAfter ? { 'retry-after': answer.retryAfter } : undefined;
    const body = answer.message
      ? { error: { message: answer.message, type: 'invalid_request_error', code: 'invalid_api_key', param: null } }
      : undefined;
    return { status: answer.status, headers, body };
  }
  if ('garbage' in answer) return { raw: '{"id":"chatcmpl-1","choices":[{"mess' };
  if ('noText' in answer) return { text: null, finishReason: 'length' };
  return answer;
}

const userTurn = (body: any): string => body.messages[body.messages.length - 1].content;
const systemText = (body: any): string =>
  body.messages
    .filter((m: any) => m.role === 'system')
    .map((m: any) => m.content)
    .join('\n');

const remoteOf = (mock: MockOpenAi, apiKey?: string) => ({
  script: (...answers: ContractAnswer[]) =>
    mock.setHandler((_b, n) => openAiAnswer(answers[Math.min(n, answers.length - 1)])),
  requests: () => mock.requests,
  delivered: () => ({ ...mock.delivered }),
  reset: () => mock.reset(),
  systemOf: systemText,
  userTurnOf: userTurn,
  transcriptOf,
  apiKey,
});

summarizerContract('openai-compatible (mock /v1/chat/completions, with a key)', async () => {
  const mock = await startMockOpenAi();
  return {
    summarizer: new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'gpt-4o-mini', apiKey: API_KEY }),
    remote: remoteOf(mock, API_KEY),
    close: () => mock.close(),
  };
});

summarizerContract('openai-compatible (mock /v1/chat/completions, keyless like Ollama)', async () => {
  const mock = await startMockOpenAi();
  return {
    summarizer: new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'llama3.2' }),
    remote: remoteOf(mock),
    close: () => mock.close(),
  };
});

const input: LocationSummaryInput = {
  campaignId: 'c1',
  location: { id: 'loc-anchor', name: 'The Rusty Anchor' },
  messages: [{ index: 0, role: 'dm', speaker: null, content: 'We enter the tavern.', at: '2026-01-01T10:00:00.000Z' }],
};

describe('OpenAiSummarizer: what only Chat Completions has', () => {
  let mock: MockOpenAi;
  beforeAll(async () => {
    mock = await startMockOpenAi();
  });
  afterEach(() => mock.reset());
  afterAll(() => mock.close());

  it('sends a system and a user message to <base>/chat/completions, with the key as a bearer token', async () => {
    await new OpenAiSummarizer({
      baseURL: mock.baseUrl,
      model: 'gpt-4o-mini',
      apiKey: API_KEY,
      maxOutputTokens: 77,
    }).summarizeLocation(input);
    const { body, headers, path } = mock.requests[0];
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 77 });
    expect(body.messages.map((m: any) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0].content).not.toContain('We enter the tavern');
  });

  it('sends no Authorization header at all without a key (local servers)', async () => {
    await new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'llama3.2' }).summarizeLocation(input);
    expect(mock.requests[0].headers.authorization).toBeUndefined();
    expect(JSON.stringify(mock.requests[0].headers)).not.toContain('no-key');
  });

  it('counts cached prompt tokens apart, as part of the prompt', async () => {
    mock.setHandler(() => ({
      text: 'Counted.',
      usage: { prompt_tokens: 500, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 384 } },
    }));
    const result = await new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'gpt-4o-mini' }).summarizeLocation(input);
    expect(result).toMatchObject({
      text: 'Counted.',
      inputTokens: 500,
      outputTokens: 20,
      cacheReadTokens: 384,
      cacheWriteTokens: 0,
      model: 'gpt-4o-mini',
    });
  });

  it('counts a server that reports no usage as zero tokens, not NaN', async () => {
    mock.setHandler(() => ({
      raw: JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'No usage.' }, finish_reason: 'stop' }],
      }),
    }));
    const result = await new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'm' }).summarizeLocation(input);
    expect(result).toMatchObject({ text: 'No usage.', inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });
  });

  it('turns a non-JSON page (a proxy error) into a clear failure', async () => {
    mock.setHandler(() => ({ raw: '<html>Bad gateway</html>', contentType: 'text/html' }));
    await expect(new OpenAiSummarizer({ baseURL: mock.baseUrl, model: 'm' }).summarizeLocation(input)).rejects.toThrow(
      /unexpected response: not a chat completion/,
    );
  });
});
