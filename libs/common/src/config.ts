import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseApiKeys } from './api-keys';
import { ConfigError } from './errors';
import { ModelPrices, parseModelPrices } from './model-prices';

export { ConfigError } from './errors';

const int = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** Every setting of DESIGN §4 and §9, validated at boot. */
export const configSchema = z
  .object({
    PORT: int(3000, 0, 65535),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z
      .string()
      .default('sqlite:./data/lorekeeper.db')
      .refine((v) => /^sqlite:.+/.test(v) || /^postgres(ql)?:\/\/.+/.test(v), {
        message: 'must be sqlite:<file>, sqlite::memory: or postgres://…',
      }),
    ANTHROPIC_API_KEY: z.string().optional(),
    ANTHROPIC_BASE_URL: z.url().optional(),
    ANTHROPIC_MODEL: z.string().min(1).default('claude-haiku-4-5'),
    SUMMARIZER: z.enum(['anthropic', 'openai', 'local']).optional(),
    // http(s) only: the OpenAI SDK appends /chat/completions to it.
    OPENAI_BASE_URL: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:11434/v1' })
      .optional(),
    OPENAI_MODEL: z.string().min(1).max(200).optional(),
    OPENAI_API_KEY: z.string().optional(),
    MODEL_PRICES: z.string().optional(),
    SUMMARY_ATTEMPTS: int(2, 1, 10),
    SUMMARY_TIMEOUT_MS: int(30000, 1, 600000),
    CONTEXT_MEMORY_LIMIT: int(3, 1, 100),
    MEMORY_CONCURRENCY: int(4, 1, 64),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LEASE_TTL_MS: int(10000, 100),
    LEASE_POLL_MS: int(1000, 10),
    REPLICA_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'letters, digits, . _ : - (≤ 64)')
      .optional(),
    TICK_SECONDS: int(10, 1),
    STATE_MAX_TOKENS: int(500, 10),
    DIGEST_MAX_TOKENS: int(180, 10),
    HUD_MAX_TOKENS: int(40, 5),
    SCENE_MAX_TOKENS: int(300, 20, 5000),
    MIN_RECENT_MESSAGES: int(4, 0, 1000),
    CONTEXT_RECENT_MESSAGES: int(20, 1, 1000),
    HOT_ROUNDS: int(4, 1, 100),
    SUMMARY_INTERVAL_ROUNDS: int(4, 1, 1000),
    ROLLING_SUMMARY_WORDS: int(150, 10, 2000),
    RECALL_LIMIT: int(5, 0, 100),
    CONTEXT_TOKEN_BUDGET: int(4000, 50, 200000),
    LOREKEEPER_API_KEYS: z.string().optional(),
    STREAM_HEARTBEAT_MS: int(15000, 10, 3_600_000),
    STREAM_POLL_MS: int(1000, 10, 600_000),
    STREAM_STALL_MS: int(30000, 10, 3_600_000),
    REQUEST_TIMEOUT_MS: int(30000, 1000, 600000),
    MAX_CONNECTIONS: int(1024, 1, 1_000_000),
    // §13 fair share: 0 runs reads on the main thread (unit tests; no isolation).
    READ_WORKERS: int(availableParallelism(), 0, 64),
    READ_QUEUE: int(256, 1, 100_000),
    HEADERS_TIMEOUT_MS: int(5000, 100, 600_000),
    MAX_CONNECTIONS_PER_IP: int(256, 1, 1_000_000),
    // §13 fair share: bodies refused by a linear scan, and the glossary bounded per request, per campaign and per
    // context.
    MAX_JSON_KEYS: int(10_000, 1, 1_000_000),
    MAX_NEW_TERMS_PER_REQUEST: int(20, 0, 10_000),
    MAX_GLOSSARY_TERMS: int(2_000, 0, 1_000_000),
    // Unset: 20 % of each context's budget.
    GLOSSARY_MAX_TOKENS: z.coerce.number().int().min(0).max(200_000).optional(),
    // §15: the largest campaign export POST /v1/campaigns/import takes (256 MB).
    IMPORT_MAX_BYTES: int(256 * 1024 * 1024, 1024),
    // Read by apps/memory-service/src/boot-cache.ts before anything loads; validated here like the rest.
    BOOT_CACHE: z.enum(['on', 'off', 'warm']).default('on'),
  })
  .superRefine((v, ctx) => {
    if (v.SUMMARIZER === 'anthropic' && !v.ANTHROPIC_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['SUMMARIZER'], message: 'anthropic needs ANTHROPIC_API_KEY' });
    }
    if (v.SUMMARIZER === 'openai') {
      const needs = (name: string, example: string) =>
        ctx.addIssue({ code: 'custom', path: [name], message: `SUMMARIZER=openai needs ${name} (e.g. ${example})` });
      if (!v.OPENAI_BASE_URL) needs('OPENAI_BASE_URL', 'http://localhost:11434/v1');
      if (!v.OPENAI_MODEL) needs('OPENAI_MODEL', 'llama3.2');
    }
    try {
      parseModelPrices(v.MODEL_PRICES);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['MODEL_PRICES'], message: (err as Error).message });
    }
    if (v.LOREKEEPER_API_KEYS !== undefined) {
      try {
        parseApiKeys(v.LOREKEEPER_API_KEYS);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['LOREKEEPER_API_KEYS'], message: (err as Error).message });
      }
    }
  });

export type Env = z.infer<typeof configSchema>;

export interface AppConfig {
  port: number;
  host: string;
  database: { type: 'sqlite'; path: string } | { type: 'postgres'; url: string };
  summarizer: 'anthropic' | 'openai' | 'local';
  anthropicApiKey?: string;
  openaiBaseUrl?: string;
  openaiModel?: string;
  /** Never logged: the config is not printed, and adapters scrub it from every error. */
  openaiApiKey?: string;
  /** MODEL_PRICES merged over the built-in prices (USD per million tokens). */
  modelPrices: ModelPrices;
  anthropicBaseUrl?: string;
  anthropicModel: string;
  summaryAttempts: number;
  summaryTimeoutMs: number;
  contextMemoryLimit: number;
  memoryConcurrency: number;
  logLevel: Env['LOG_LEVEL'];
  leaseTtlMs: number;
  leasePollMs: number;
  /** Names this replica in leases; default host-pid-random. */
  replicaId?: string;
  tickSeconds: number;
  stateMaxTokens: number;
  digestMaxTokens: number;
  hudMaxTokens: number;
  /** §8 Scene section bound (SCENE_MAX_TOKENS). */
  sceneMaxTokens: number;
  /** §8: the newest Recent Messages dropped last, after memories (MIN_RECENT_MESSAGES). */
  minRecentMessages: number;
  contextRecentMessages: number;
  hotRounds: number;
  summaryIntervalRounds: number;
  rollingSummaryWords: number;
  recallLimit: number;
  contextTokenBudget: number;
  /** LOREKEEPER_API_KEYS as given: `token[=campaign-glob],…` (see parseApiKeys); unset = no authentication. */
  apiKeys?: string;
  /**
   * Event stream (DESIGN §11): comment heartbeat, fallback poll, and how long a listener may not read before it is cut
   * off.
   */
  streamHeartbeatMs: number;
  streamPollMs: number;
  streamStallMs: number;
  /** A request (headers and body) must arrive within this many ms, else 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Open connections beyond this are refused at accept time. */
  maxConnections: number;
  /** §13: worker threads that build contexts and run searches (0: on the main thread). */
  readWorkers: number;
  /** §13: reads that may wait for a worker; past it 503 BUSY. */
  readQueue: number;
  /** §13: a connection without a complete request head after this many ms is closed (at most REQUEST_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** §13: open connections per client address; more are closed at accept time. */
  maxConnectionsPerIp: number;
  /** §13: a JSON body with more keys than this (all objects together) is refused before it is parsed. */
  maxJsonKeys: number;
  /** §13: glossary terms one request's messages may coin (MAX_NEW_TERMS_PER_REQUEST). */
  maxNewTermsPerRequest: number;
  /** §13: coined glossary terms a campaign holds at most, bible and GM terms aside (MAX_GLOSSARY_TERMS). */
  maxGlossaryTerms: number;
  /** §13: the Glossary tokens a context never drops (GLOSSARY_MAX_TOKENS); null: 20 % of its budget. */
  glossaryMaxTokens: number | null;
  /** §15: the largest export the import route reads (bytes); larger is 413. */
  importMaxBytes: number;
  /** BOOT_CACHE: `on` (default), `off`, or `warm` (boot, write the cache, exit; run by the build). */
  bootCache: 'on' | 'off' | 'warm';
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Parses the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  return configOf(parseEnv(env));
}

/** The environment's variables checked against the schema (an empty one counts as unset). */
function parseEnv(env: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The configuration the checked variables name. */
function configOf(e: Env): AppConfig {
  const url = e.DATABASE_URL;
  return {
    port: e.PORT,
    host: e.HOST,
    database: url.startsWith('sqlite:')
      ? { type: 'sqlite', path: url.slice('sqlite:'.length) }
      : { type: 'postgres', url },
    summarizer: e.SUMMARIZER ?? (e.ANTHROPIC_API_KEY ? 'anthropic' : 'local'),
    anthropicApiKey: e.ANTHROPIC_API_KEY,
    anthropicBaseUrl: e.ANTHROPIC_BASE_URL,
    anthropicModel: e.ANTHROPIC_MODEL,
    openaiBaseUrl: e.OPENAI_BASE_URL,
    openaiModel: e.OPENAI_MODEL,
    openaiApiKey: e.OPENAI_API_KEY,
    modelPrices: parseModelPrices(e.MODEL_PRICES),
    summaryAttempts: e.SUMMARY_ATTEMPTS,
    summaryTimeoutMs: e.SUMMARY_TIMEOUT_MS,
    contextMemoryLimit: e.CONTEXT_MEMORY_LIMIT,
    memoryConcurrency: e.MEMORY_CONCURRENCY,
    logLevel: e.LOG_LEVEL,
    leaseTtlMs: e.LEASE_TTL_MS,
    leasePollMs: e.LEASE_POLL_MS,
    replicaId: e.REPLICA_ID,
    tickSeconds: e.TICK_SECONDS,
    stateMaxTokens: e.STATE_MAX_TOKENS,
    digestMaxTokens: e.DIGEST_MAX_TOKENS,
    hudMaxTokens: e.HUD_MAX_TOKENS,
    sceneMaxTokens: e.SCENE_MAX_TOKENS,
    minRecentMessages: e.MIN_RECENT_MESSAGES,
    contextRecentMessages: e.CONTEXT_RECENT_MESSAGES,
    hotRounds: e.HOT_ROUNDS,
    summaryIntervalRounds: e.SUMMARY_INTERVAL_ROUNDS,
    rollingSummaryWords: e.ROLLING_SUMMARY_WORDS,
    recallLimit: e.RECALL_LIMIT,
    contextTokenBudget: e.CONTEXT_TOKEN_BUDGET,
    apiKeys: e.LOREKEEPER_API_KEYS,
    streamHeartbeatMs: e.STREAM_HEARTBEAT_MS,
    streamPollMs: e.STREAM_POLL_MS,
    streamStallMs: e.STREAM_STALL_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    maxConnections: e.MAX_CONNECTIONS,
    readWorkers: e.READ_WORKERS,
    readQueue: e.READ_QUEUE,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP,
    maxJsonKeys: e.MAX_JSON_KEYS,
    maxNewTermsPerRequest: e.MAX_NEW_TERMS_PER_REQUEST,
    maxGlossaryTerms: e.MAX_GLOSSARY_TERMS,
    glossaryMaxTokens: e.GLOSSARY_MAX_TOKENS ?? null,
    importMaxBytes: e.IMPORT_MAX_BYTES,
    bootCache: e.BOOT_CACHE,
  };
}
