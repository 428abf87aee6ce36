import { ConfigError } from '@app/common';
import { startMockAnthropic } from '../../../test/support/mock-anthropic';
import { startMockOpenAi } from '../../../test/support/mock-openai';
import { ChunkingSummarizer, createSummarizer } from './index';

describe('createSummarizer', () => {
  const base = { anthropicModel: 'claude-haiku-4-5' };
  const input = {
    campaignId: 'c1',
    location: { id: 'l1', name: 'Crypt' },
    messages: [
      { index: 0, role: 'dm', speaker: null, content: 'The party found 3 keys in the Vault of Orin.', at: 't' },
    ],
  };

  it('gives the offline local summarizer, chunked, by default', async () => {
    const summarizer = createSummarizer({ ...base, summarizer: 'local', maxInputChars: 5_000 });
    expect(summarizer).toBeInstanceOf(ChunkingSummarizer);
    expect(summarizer.name).toBe('local');
    expect((summarizer as ChunkingSummarizer).maxInputChars).toBe(5_000);
    expect((await summarizer.summarizeLocation(input)).text).toBe(
      'At Crypt: The party found 3 keys in the Vault of Orin.',
    );
  });

  it('refuses the anthropic adapter without an API key', () => {
    expect(() => createSummarizer({ ...base, summarizer: 'anthropic' })).toThrow(ConfigError);
  });

  it('wires the anthropic adapter to the configured base URL and model', async () => {
    const mock = await startMockAnthropic();
    try {
      const summarizer = createSummarizer({
        summarizer: 'anthropic',
        anthropicApiKey: 'sk-ant-test-factory-key',
        anthropicBaseUrl: mock.baseUrl,
        anthropicModel: 'claude-opus-5-5',
      });
      expect(summarizer.name).toBe('anthropic');
      const result = await summarizer.summarizeLocation(input);
      expect(result.text).toBe('Summary of 1 messages: The party found 3 keys in. The story moves on.');
      expect(mock.requests[0].body.model).toBe('claude-opus-5-5');
    } finally {
      await mock.close();
    }
  });

  it('refuses the openai adapter without a base URL or a model', () => {
    expect(() => createSummarizer({ ...base, summarizer: 'openai', openaiModel: 'llama3.2' })).toThrow(
      /OPENAI_BASE_URL/,
    );
    expect(() =>
      createSummarizer({ ...base, summarizer: 'openai', openaiBaseUrl: 'http://localhost:11434/v1' }),
    ).toThrow(/OPENAI_MODEL/);
  });

  it('wires the openai adapter to the configured base URL and model, chunked, naming the model', async () => {
    const mock = await startMockOpenAi();
    try {
      const summarizer = createSummarizer({
        ...base,
        summarizer: 'openai',
        openaiBaseUrl: mock.baseUrl,
        openaiModel: 'llama3.2',
      });
      expect(summarizer).toBeInstanceOf(ChunkingSummarizer);
      expect([summarizer.name, summarizer.model]).toEqual(['openai', 'llama3.2']);
      expect((await summarizer.summarizeLocation(input)).text).toBe(
        'Summary of 1 messages: The party found 3 keys in. The story moves on.',
      );
      expect(mock.requests[0].body.model).toBe('llama3.2');
    } finally {
      await mock.close();
    }
  });
});
