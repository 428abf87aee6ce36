import { HttpResult, TestApp } from './test-app';

/** Asserts a problem+json rejection with the given status and code. */
export function expectProblem(res: HttpResult, status: number, code: string): void {
  if (res.status !== status || res.body?.code !== code)
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text.slice(0, 400)}`);
  if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`expected problem+json, got ${res.headers.get('content-type')}`);
  if (res.body.status !== status) throw new Error(`problem status ${res.body.status} differs from HTTP ${status}`);
}

/** Runs `send`, expects the rejection, and checks the campaign's version and message count did not move. */
export async function expectRejected(
  t: TestApp,
  campaignId: string,
  status: number,
  code: string,
  send: () => Promise<HttpResult>,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const before = await t.http('GET', `/v1/campaigns/${campaignId}`, undefined, headers);
  const res = await send();
  expectProblem(res, status, code);
  const after = await t.http('GET', `/v1/campaigns/${campaignId}`, undefined, headers);
  if (after.body.version !== before.body.version)
    throw new Error(`version moved ${before.body.version} → ${after.body.version} on a rejected request`);
  if (after.body.messageCount !== before.body.messageCount) throw new Error(`messageCount moved on a rejected request`);
  return res;
}
