import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configSchema, loadConfig } from './config';

describe('configuration', () => {
  it('has defaults for everything (no variable is required)', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.database).toEqual({ type: 'sqlite', path: './data/lorekeeper.db' });
    expect(c.summarizer).toBe('local');
    expect(c.summaryAttempts).toBe(2);
    expect(c.contextMemoryLimit).toBe(3);
    expect([c.maxJsonKeys, c.maxNewTermsPerRequest, c.maxGlossaryTerms, c.glossaryMaxTokens]).toEqual([
      10_000,
      20,
      2_000,
      null,
    ]);
  });

  it('validates the §13 limits at boot, naming the variable', () => {
    expect(() => loadConfig({ MAX_JSON_KEYS: '0' })).toThrow(/MAX_JSON_KEYS/);
    expect(() => loadConfig({ MAX_NEW_TERMS_PER_REQUEST: 'many' })).toThrow(/MAX_NEW_TERMS_PER_REQUEST/);
    expect(() => loadConfig({ MAX_GLOSSARY_TERMS: '-1' })).toThrow(/MAX_GLOSSARY_TERMS/);
    expect(() => loadConfig({ GLOSSARY_MAX_TOKENS: '1.5' })).toThrow(/GLOSSARY_MAX_TOKENS/);
    expect(loadConfig({ GLOSSARY_MAX_TOKENS: '300' }).glossaryMaxTokens).toBe(300);
  });

  it('picks the Anthropic summarizer when a key is set', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: 'k' }).summarizer).toBe('anthropic');
    expect(loadConfig({ ANTHROPIC_API_KEY: 'k', SUMMARIZER: 'local' }).summarizer).toBe('local');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['SUMMARY_ATTEMPTS', '0'],
    ['MEMORY_CONCURRENCY', '1.5'],
    ['LOG_LEVEL', 'loud'],
    ['SUMMARIZER', 'mistral'],
    ['OPENAI_BASE_URL', 'localhost:11434'],
    ['OPENAI_BASE_URL', 'ftp://models.example/v1'],
    ['MODEL_PRICES', 'cheap'],
    ['MODEL_PRICES', '[1, 2]'],
    ['MODEL_PRICES', '{"m":{"input":1}}'],
    ['MODEL_PRICES', '{"m":{"input":-1,"output":2}}'],
    ['MODEL_PRICES', '{"m":{"input":1,"output":2,"cachedRead":0.1}}'],
    ['MODEL_PRICES', '{"m":{"input":"1","output":2}}'],
    ['ANTHROPIC_BASE_URL', 'not a url'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('refuses SUMMARIZER=anthropic without a key', () => {
    expect(() => loadConfig({ SUMMARIZER: 'anthropic' })).toThrow(/SUMMARIZER/);
  });

  it('refuses SUMMARIZER=openai without OPENAI_BASE_URL or OPENAI_MODEL, naming the missing variable', () => {
    expect(() => loadConfig({ SUMMARIZER: 'openai', OPENAI_MODEL: 'llama3.2' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadConfig({ SUMMARIZER: 'openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' })).toThrow(
      /OPENAI_MODEL/,
    );
  });

  it('takes a local Ollama with three variables, no key', () => {
    const c = loadConfig({
      SUMMARIZER: 'openai',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      OPENAI_MODEL: 'llama3.2',
    });
    expect(c).toMatchObject({
      summarizer: 'openai',
      openaiBaseUrl: 'http://localhost:11434/v1',
      openaiModel: 'llama3.2',
      openaiApiKey: undefined,
    });
  });

  it('never repeats a secret in a configuration error', () => {
    const secret = 'sk-proj-SECRET-in-config-0123456789';
    let message = '';
    try {
      loadConfig({ SUMMARIZER: 'openai', OPENAI_API_KEY: secret, MODEL_PRICES: '{"m":1}' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/OPENAI_BASE_URL/);
    expect(message).toMatch(/MODEL_PRICES/);
    expect(message).not.toContain('SECRET');
  });

  it('reads MODEL_PRICES per million tokens over the built-in prices, cache prices defaulting to the input price', () => {
    expect(loadConfig({}).modelPrices['claude-haiku-4-5']).toEqual({
      input: 1,
      output: 5,
      cacheRead: 0.1,
      cacheWrite: 1.25,
    });
    const prices = loadConfig({
      MODEL_PRICES: '{"llama3.2":{"input":0,"output":0},"gpt-4o-mini":{"input":0.15,"output":0.6,"cacheRead":0.075}}',
    }).modelPrices;
    expect(prices['gpt-4o-mini']).toEqual({ input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 });
    expect(prices['llama3.2']).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(prices['claude-haiku-4-5']).toBeDefined();
  });

  it('§13 fair-share settings: defaults, and a bad value stops the boot naming it', () => {
    const c = loadConfig({});
    expect(c.readWorkers).toBeGreaterThanOrEqual(1);
    expect([c.readQueue, c.headersTimeoutMs, c.maxConnectionsPerIp]).toEqual([256, 5000, 256]);
    expect(loadConfig({ READ_WORKERS: '0' }).readWorkers).toBe(0);
    for (const [name, value] of [
      ['READ_WORKERS', '-1'],
      ['READ_WORKERS', '65'],
      ['READ_QUEUE', '0'],
      ['HEADERS_TIMEOUT_MS', '50'],
      ['MAX_CONNECTIONS_PER_IP', '0'],
      ['MAX_CONNECTIONS_PER_IP', 'many'],
    ]) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });

  it('documents every variable in the configuration table (docs/configuration.md), and nothing else', () => {
    // The README keeps a short table; the full one moved to docs/configuration.md (issue 22).
    const section = readFileSync(join(__dirname, '../../../docs/configuration.md'), 'utf8');
    const documented = new Set([...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    const schemaKeys = Object.keys(
      (configSchema as unknown as { shape?: object }).shape ?? (configSchema as any).def?.in?.shape ?? {},
    );
    expect(schemaKeys.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...schemaKeys].sort());
  });
});
