/**
 * orval's custom-fetch mutator (its documented way to set a base URL): the generated functions pass a path;
 * this prefixes LOREKEEPER_URL and parses the body by its Content-Type, so the context's text/plain answer
 * arrives as a string (orval's built-in fetch JSON.parses every body). Copied next to the generated client.
 */
export const lorekeeperFetch = async <T>(path: string, init: RequestInit): Promise<T> => {
  const res = await fetch(`${process.env.LOREKEEPER_URL ?? 'http://localhost:3000'}${path}`, init);
  const raw = [204, 205, 304].includes(res.status) ? '' : await res.text();
  const type = res.headers.get('content-type') ?? '';
  const data: unknown = raw && /json/.test(type) ? JSON.parse(raw) : raw;
  // The adapter's one cast, as in orval's own custom-fetch example: the generated signature names T.
  return { status: res.status, data, headers: res.headers } as T;
};
