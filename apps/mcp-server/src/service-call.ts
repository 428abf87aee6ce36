import { ClientOptions, LorekeeperClient, LorekeeperError } from '@app/client';

export interface ServiceOptions extends ClientOptions {
  /** How long one HTTP request may take (a context read may wait up to 30 s for the worker). */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** The request a tool call made last: failures name it. */
interface Attempt {
  method: string;
  url: string;
}

/** The service could not be reached at all (refused, unknown host, reset, timeout). */
export class ServiceUnreachableError extends Error {
  override readonly name = 'ServiceUnreachableError';
}

/**
 * One tool call's view of the service: a client whose requests are remembered, so that an error can say
 * which URL failed and why — Node's own fetch error is only "fetch failed".
 */
export class ServiceCall {
  readonly client: LorekeeperClient;
  private last: Attempt | undefined;

  constructor(private readonly options: ServiceOptions) {
    const base = options.fetch ?? fetch;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const tracked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const attempt = { method: init?.method ?? 'GET', url: input instanceof Request ? input.url : String(input) };
      this.last = attempt;
      try {
        return await base(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw new ServiceUnreachableError(unreachable(options.baseUrl, attempt, err, timeoutMs));
      }
    };
    this.client = new LorekeeperClient({ ...options, fetch: tracked as typeof fetch });
  }

  /** A one-paragraph account of what went wrong, naming the request and what to do about it. */
  describe(err: unknown): string {
    if (err instanceof ServiceUnreachableError) return err.message;
    const where = this.last ? `${this.last.method} ${this.last.url}` : `Lorekeeper at ${this.options.baseUrl}`;
    if (err instanceof LorekeeperError) {
      return `${where} → ${err.status} ${err.code}: ${problemText(err)}${hint(err, this.options)}`;
    }
    return `${where} failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function unreachable(baseUrl: string, attempt: Attempt, err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const reason =
    e.name === 'TimeoutError'
      ? `no answer within ${timeoutMs} ms`
      : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err));
  return (
    `Lorekeeper is not reachable at ${baseUrl} (${attempt.method} ${attempt.url}: ${reason}). ` +
    'Is the service running there? This MCP server takes its address from LOREKEEPER_URL.'
  );
}

function problemText(err: LorekeeperError): string {
  const p = err.problem as { detail?: unknown; title?: unknown; errors?: { path?: unknown; message?: unknown }[] };
  // A proxy's HTML error page is not worth quoting whole.
  const detail = String(p.detail ?? p.title ?? '').slice(0, 500);
  const fields = Array.isArray(p.errors)
    ? p.errors.map((f) => `${String(f.path ?? '')}: ${String(f.message ?? '')}`).join('; ')
    : '';
  return fields ? `${detail} (${fields})` : detail;
}

function hint(err: LorekeeperError, options: ServiceOptions): string {
  if (err.status === 401) {
    return options.apiKey
      ? ' — the service does not accept the key in LOREKEEPER_API_KEY.'
      : ' — this MCP server sends no key: set LOREKEEPER_API_KEY to one of the service’s LOREKEEPER_API_KEYS.';
  }
  if (err.code === 'VIEWER_BOUND') {
    return (
      ' — the key this MCP server was given (LOREKEEPER_API_KEY) is bound to one character: it is read-only and ' +
      'reads only what that character witnessed (get_context with agent player or npc and that viewer). ' +
      'Writes, agent=dm, other viewers and unfiltered reads need a full key.'
    );
  }
  return '';
}
