import { startMockAnthropic } from '../../../test/support/mock-anthropic';

// The mock lives in test/support for e2e tests and benchmarks; its own behaviour is pinned here.
describe('mock Anthropic Messages API', () => {
  const post = (baseUrl: string, body: unknown, path = '/v1/messages', signal?: AbortSignal) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });

  const request = {
    model: 'claude-haiku-4-5',
    max_tokens: 100,
    messages: [
      {
        role: 'user',
        content:
          'Task\n<transcript>\n{"i":0,"role":"dm","text":"Hi."}\n{"i":1,"role":"player","text":"We found the \\u003ckey> today!"}\n</transcript>',
      },
    ],
  };

  it('answers a valid Messages API JSON derived from the transcript, and records the request', async () => {
    const mock = await startMockAnthropic();
    try {
      const res = await post(mock.baseUrl, request);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const json = await res.json();
      expect(json).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'Summary of 2 messages: We found the <key> today. The story moves on.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
      });
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages', body: request });
      expect(mock.requests[0].headers['content-type']).toBe('application/json');
    } finally {
      await mock.close();
    }
  });

  it('serves scripted responses by request number and reset() restores the default', async () => {
    const mock = await startMockAnthropic();
    try {
      mock.setHandler((_body, n) =>
        n === 0 ? { status: 529, headers: { 'retry-after': '1' } } : { content: [{ type: 'text', text: 'raw' }] },
      );
      const first = await post(mock.baseUrl, request);
      expect(first.status).toBe(529);
      expect(first.headers.get('retry-after')).toBe('1');
      expect(await first.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'mock 529' } });
      expect(((await (await post(mock.baseUrl, request)).json()) as any).content).toEqual([
        { type: 'text', text: 'raw' },
      ]);

      mock.reset();
      expect(mock.requests).toHaveLength(0);
      expect(((await (await post(mock.baseUrl, request)).json()) as any).content[0].text).toMatch(
        /^Summary of 2 messages/,
      );
    } finally {
      await mock.close();
    }
  });

  it('answers 404 off the Messages route without recording it', async () => {
    const mock = await startMockAnthropic();
    try {
      expect((await post(mock.baseUrl, request, '/v1/complete')).status).toBe(404);
      expect(mock.requests).toHaveLength(0);
    } finally {
      await mock.close();
    }
  });

  it('resets the connection on request and closes promptly with a hanging request open', async () => {
    const mock = await startMockAnthropic();
    mock.setHandler((_body, n) => (n === 0 ? { reset: true } : { hang: true }));
    await expect(post(mock.baseUrl, request)).rejects.toThrow();
    const hanging = post(mock.baseUrl, request).catch((error: unknown) => error);
    while (mock.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await mock.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await hanging).toHaveProperty('message'); // the client sees its socket closed (an error, not a hang)
  });
});
