import { CampaignReader } from '@app/campaign';
import { APP_CONFIG, AppConfig, Clock, CLOCK, DomainError } from '@app/common';
import { ContextService } from '@app/context';
import { MemoryReader } from '@app/memory';
import { SearchService } from '@app/recall';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { join, resolve } from 'node:path';
import { Piscina } from 'piscina';
import { Counter, Gauge } from 'prom-client';
import { Metrics } from '../observability/metrics';
import { callerOf } from '../http/caller';
import { FairScheduler, QueueFull } from './fair-scheduler';
import { bodyOf, ContextTask, ReadBody, ReadServices, ReadTask, ReadWorkerData, runRead } from './read-task';
import type { SearchTask, WorkerAnswer } from './read-task';

/** How much lower a read worker's scheduling priority is than the main thread's (nice, 0–19). */
const READ_WORKER_NICE = 5;

/**
 * A read worker's young generation, in MB (V8's default is 3 × 16 MB semi-spaces). A context build allocates a few MB
 * that die with it (rows, entries, its body); with the default a build in flight at a scavenge is promoted and the old
 * generation's concurrent marking (V8's helper threads, shared with the main thread) pays for it: ≈ 1 ms of helper CPU
 * a 5,000-message player context, against ≈ 0.1 ms with 64 MB. The space grows to it only under load.
 */
const READ_WORKER_YOUNG_GENERATION_MB = 64;

/**
 * How long a caller whose read just finished keeps a read thread in reserve for its next read (DESIGN §13; see
 * FairScheduler): long enough for a caller reading back to back to send its next request through a busy main thread.
 */
const ANTICIPATE_MS = 50;

/** How long shutdown waits for running reads before the threads are stopped (in-flight requests finished first). */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * A read's serialized body on its way out (§13: no second serialization on the main thread), handed through Nest as
 * this box, which gives its string to Fastify's serializer and lets go of it. Why not the string: a request that waited
 * for a read thread is old by the time its answer comes (its promises, Nest's and Fastify's objects were promoted by
 * the scavenges it waited through), and an old promise resolved with the answer kept it alive through the next
 * scavenge, which promoted it in turn: under 50 concurrent player contexts ≈ 90 KB per read, 3–6 MB a scavenge, a
 * mark-compact every few seconds (issue 29's write tail; docs/decisions.md). The box is what stays.
 */
export class SentBody {
  private constructor(
    readonly type: ReadBody['type'],
    private payload: string | null,
  ) {}

  /** Takes the payload out of `body` (what the read worker sent, still held by the promises it went through). */
  static from(body: ReadBody): SentBody {
    const sent = new SentBody(body.type, body.payload);
    body.payload = '';
    return sent;
  }

  /** The payload, for a check before it is sent (the e2e harness's response check). */
  peek(): string {
    return this.payload ?? '';
  }

  /** The payload, once: the box no longer holds it. */
  take(): string {
    const payload = this.payload ?? '';
    this.payload = null;
    return payload;
  }
}

/** Fastify's serializer for a SentBody: its string as it is. */
const serializeSent = (body: unknown): string => (body instanceof SentBody ? body.take() : JSON.stringify(body));

/** Sends a read's serialized body as it is: the content type, and the box Fastify's serializer empties. */
export const sendRead = (reply: FastifyReply, body: SentBody): SentBody => {
  const type = body.type === 'text' ? 'text/plain' : 'application/json';
  void reply.header('content-type', `${type}; charset=utf-8`).serializer(serializeSent);
  return body;
};

/** The caller a read is queued for (§13): its API key's id, or its address when no keys are configured. */
export const readKeyOf = (req: FastifyRequest): string => {
  const keyId = callerOf(req).keyId;
  return keyId !== null ? `key:${keyId}` : `ip:${req.ip}`;
};

/** The worker's entry: compiled next to this file (dist), or loaded through the swc hook from the sources (jest). */
function workerEntry(): { filename: string; entry?: string } {
  if (!__filename.endsWith('.ts')) return { filename: join(__dirname, 'read.worker.js') };
  const root = resolve(__dirname, '../../../..');
  return { filename: join(root, 'scripts/ts-worker.js'), entry: join(__dirname, 'read.worker.ts') };
}

/** `sqlite::memory:` lives in the main thread's connection only: no other connection can read it. */
const inMemory = (config: AppConfig): boolean =>
  config.database.type === 'sqlite' && config.database.path === ':memory:';

/** What a worker needs of the configuration: no secrets cross to the threads. */
function workerConfig(config: AppConfig): AppConfig {
  const { anthropicApiKey: _a, openaiApiKey: _o, apiKeys: _k, ...rest } = config;
  return rest;
}

/**
 * DESIGN §13 "Reads off the event loop": context builds and searches run in a piscina pool of READ_WORKERS threads,
 * each with its own read connection; waiting reads (at most READ_QUEUE) are served round-robin across callers. With
 * READ_WORKERS=0, or on `sqlite::memory:`, they run on the main thread with the app's own services (no isolation, no
 * queue).
 */
@Injectable()
export class ReadPool implements OnApplicationShutdown {
  private pool: Piscina<ReadTask, WorkerAnswer> | null = null;
  private readonly scheduler: FairScheduler;
  private closed = false;
  private readonly refused: Counter;
  private readonly logger = new Logger('context');
  private readonly local: ReadServices;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ContextService) context: ContextService,
    @Inject(SearchService) search: SearchService,
    @Inject(CampaignReader) campaigns: CampaignReader,
    @Inject(MemoryReader) memories: MemoryReader,
    @Inject(Metrics) metrics: Metrics,
  ) {
    this.local = { context, search, campaigns, memories };
    this.scheduler = new FairScheduler({
      threads: config.readWorkers,
      queue: config.readQueue,
      anticipateMs: ANTICIPATE_MS,
    });
    const stats = () => this.stats();
    new Gauge({
      name: 'lorekeeper_reads_waiting',
      help: 'Reads (contexts, searches) waiting for a read worker thread (DESIGN §13; at most READ_QUEUE)',
      registers: [metrics.registry],
      collect() {
        this.set(stats().waiting);
      },
    });
    this.refused = new Counter({
      name: 'lorekeeper_reads_refused_total',
      help: 'Reads answered 503 BUSY because READ_QUEUE reads were already waiting',
      registers: [metrics.registry],
    });
  }

  /**
   * The pool, started by the first read: a thread costs ≈ 60 MB and ≈ 0.5 s of CPU to load, which a service that
   * serves no reads (and every boot: issue 22's cold start and idle RSS) should not pay. Null with READ_WORKERS=0 or
   * once the app is shutting down.
   */
  private threads(): Piscina<ReadTask, WorkerAnswer> | null {
    if (this.pool || this.closed || this.config.readWorkers === 0 || inMemory(this.config)) return this.pool;
    const { filename, entry } = workerEntry();
    const workerData: ReadWorkerData = { config: workerConfig(this.config), entry };
    this.pool = new Piscina<ReadTask, WorkerAnswer>({
      filename,
      workerData,
      minThreads: this.config.readWorkers,
      maxThreads: this.config.readWorkers,
      idleTimeout: Infinity,
      // The fair scheduler hands the pool at most READ_WORKERS reads at a time: the pool's own queue stays empty.
      concurrentTasksPerWorker: 1,
      // A worker waits for its next read on its message port, not in Atomics.wait: its pool's timers keep running.
      atomics: 'disabled',
      // Below the main thread's priority: when the cores are all busy building contexts, the main thread still gets
      // its turn at once for /health, writes and handing out the next read (Linux: per thread, via @napi-rs/nice).
      niceIncrement: READ_WORKER_NICE,
      closeTimeout: CLOSE_TIMEOUT_MS,
      resourceLimits: { maxYoungGenerationSizeMb: READ_WORKER_YOUNG_GENERATION_MB },
    });
    this.pool.on('error', (err: Error) => this.logger.error(`read worker failed: ${err.stack ?? err}`));
    return this.pool;
  }

  /** Runs a read for `key`'s caller: its serialized body, or the error it failed with (503 BUSY past READ_QUEUE). */
  async run(task: Omit<ContextTask, 'now'> | Omit<SearchTask, 'now'>, key: string): Promise<SentBody> {
    const full = { ...task, now: this.clock.now().getTime() } as ReadTask;
    const pool = this.threads();
    if (!pool) return SentBody.from(bodyOf(await runRead(this.local, full)));
    const answer = await this.scheduler
      .run(key, () => pool.run(full))
      .catch((err: Error) => {
        throw err instanceof QueueFull ? this.busy() : err;
      });
    if (answer.log) this.logger.log(`context built ${JSON.stringify(answer.log)}`);
    return SentBody.from(bodyOf(answer));
  }

  /** 503 BUSY (DESIGN §13): READ_QUEUE reads already wait; the problem filter adds Retry-After. */
  private busy(): DomainError {
    this.refused.inc();
    const queue = this.config.readQueue;
    return new DomainError('unavailable', 'BUSY', `${queue} reads are already waiting; retry after a moment`);
  }

  /** Threads running, reads they completed and reads waiting (tests check that reads really ran in threads). */
  stats(): { threads: number; completed: number; waiting: number } {
    const pool = this.pool;
    return { threads: pool?.threads.length ?? 0, completed: pool?.completed ?? 0, waiting: this.scheduler.size };
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.scheduler.close();
    const pool = this.pool;
    this.pool = null;
    await pool?.close({ force: true });
  }
}
