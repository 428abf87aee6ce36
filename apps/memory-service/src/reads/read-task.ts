import { CampaignReader } from '@app/campaign';
import { AppConfig, DomainError, ErrorKind, FieldError } from '@app/common';
import { ContextBuildLog, ContextRequest, ContextService, renderJson, renderText } from '@app/context';
import { MemoryReader } from '@app/memory';
import { SearchService } from '@app/recall';
import { SearchHit } from '@app/search';
import { contextInSeq, ViewerOrdinals } from '../http/viewer-ordinals';

/**
 * One read a worker thread runs (DESIGN §13). Plain data: it crosses threads by structured clone. `now` is the main
 * thread's clock when the read was asked, so a worker's "N ticks ago" is the answer the main thread would give.
 */
export type ReadTask = ContextTask | SearchTask;

export interface ContextTask {
  kind: 'context';
  now: number;
  request: ContextRequest;
  /** `text`: the text/plain rendering (with `explain`), else the JSON body. */
  format: 'json' | 'text';
  explain: boolean;
  /** A viewer-bound caller's witness key (§8): its JSON refs are given as its own seqs. */
  witness?: string;
}

export interface SearchTask {
  kind: 'search';
  now: number;
  campaignId: string;
  text: string;
  options: Parameters<SearchService['search']>[2];
  /** The viewer-bound caller's witness key (§8): only what it witnessed is served. */
  witness?: string;
  /** How many of the filtered hits are served. */
  limit: number;
}

/**
 * A read's answer as it goes on the wire, serialized where it was built (§13): the main thread only writes it out, and
 * one string crosses threads instead of a structured clone of the whole answer. `json`: what Fastify's JSON.stringify
 * of the object would send, byte for byte; `text`: the text/plain rendering. A string, not its UTF-8 bytes in a moved
 * buffer: each moved buffer counted as external memory on the main thread, whose "external memory pressure" started
 * a major GC every ≈ 0.4 s under a read storm, and another key's slowest read of 40 went from ≈ 20 ms to 45–60 ms
 * (issue 29, docs/decisions.md).
 */
export interface ReadBody {
  type: 'json' | 'text';
  payload: string;
}

/** What a read answers: its body, or the DomainError it failed with (errors lose their class across threads). */
export type ReadOutcome =
  | { ok: true; body: ReadBody }
  | { ok: false; error: { kind: ErrorKind; code: string; message: string; errors?: FieldError[] } };

/** A worker's answer: the read's outcome and, for a context, the build's log line (the main thread logs it). */
export type WorkerAnswer = ReadOutcome & { log?: ContextBuildLog };

/** What the pool gives each worker thread (workerData). */
export interface ReadWorkerData {
  config: AppConfig;
  /** The TypeScript entry a source run loads through scripts/ts-worker.js (tests); unused from dist. */
  entry?: string;
}

/** What a read needs: the same classes on the main thread (READ_WORKERS=0) and in each worker. */
export interface ReadServices {
  context: ContextService;
  search: SearchService;
  campaigns: CampaignReader;
  memories: MemoryReader;
}

/** Runs one read; a DomainError becomes data, anything else is thrown (a 500 on the main thread). */
export async function runRead(services: ReadServices, task: ReadTask): Promise<ReadOutcome> {
  try {
    const body = task.kind === 'context' ? await contextBody(services, task) : await search(services, task);
    return { ok: true, body: serialized(body) };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { ok: false, error: { kind: err.kind, code: err.code, message: err.message, errors: err.errors } };
  }
}

const serialized = (body: unknown): ReadBody =>
  typeof body === 'string' ? { type: 'text', payload: body } : { type: 'json', payload: JSON.stringify(body) };

/** The main thread's side of `runRead`: the body, or the DomainError thrown again. */
export function bodyOf(outcome: ReadOutcome): ReadBody {
  if (outcome.ok) return outcome.body;
  const e = outcome.error;
  throw new DomainError(e.kind, e.code, e.message, e.errors);
}

async function contextBody(services: ReadServices, task: ContextTask): Promise<unknown> {
  const composed = await services.context.compose(task.request);
  if (task.format === 'text') return renderText(composed, task.explain);
  if (task.witness === undefined) return renderJson(composed);
  // DESIGN §8: a bound key's refs are seqs (the text form prints no message numbers to a player or NPC).
  const { campaignId, asOf } = task.request;
  return contextInSeq(renderJson(composed), await ordinalsOf(services, campaignId, task.witness, asOf));
}

const ordinalsOf = async (services: ReadServices, cid: string, witness: string, asOf: ContextRequest['asOf']) =>
  ViewerOrdinals.of(services.campaigns, cid, witness, await services.campaigns.horizon(cid, asOf));

/** GET …/search (DESIGN §7): the index's ranked hits, then those the caller may be served, best first. */
async function search(services: ReadServices, task: SearchTask): Promise<unknown> {
  const served = await services.search.served(task.campaignId, task.text, task.options, task.witness);
  const { horizon } = served;
  const hits = served.hits.slice(0, task.limit);
  // DESIGN §8: a bound key's message hits are its own seqs, not campaign indexes.
  const ordinals = task.witness
    ? await ViewerOrdinals.of(services.campaigns, task.campaignId, task.witness, horizon)
    : undefined;
  const ref = (h: SearchHit) => (ordinals && h.kind !== 'memory' ? ordinals.seqAtOrAfter(Number(h.ref)) : h.ref);
  return {
    items: hits.map((h) => ({
      kind: h.kind,
      ref: ref(h),
      snippet: h.snippet,
      score: h.score,
      at: h.at,
      round: h.round,
    })),
  };
}
