import Fastify from 'fastify';
import { sendRead, SentBody } from './read-pool';

/** A read's body on its way out (read-pool.ts): sent as it is, and held by nothing once Fastify has it. */
describe('SentBody', () => {
  it('takes the payload out of what the worker sent, and gives it once', () => {
    const wire = { type: 'json' as const, payload: '{"a":1}' };
    const sent = SentBody.from(wire);
    expect(wire.payload).toBe('');
    expect(sent.peek()).toBe('{"a":1}');
    expect(sent.take()).toBe('{"a":1}');
    expect(sent.peek()).toBe('');
  });

  it('goes out through Fastify byte for byte, with its content type, and the box is empty after', async () => {
    const app = Fastify();
    const boxes: SentBody[] = [];
    const payloads = { json: '{"text":"caf\u00e9 \u2014 \ud83c\udfb2","n":[1,2]}', text: '## Scene\nYou are Aria.\n' };
    app.get('/:type', async (req, reply) => {
      const type = (req.params as { type: 'json' | 'text' }).type;
      const box = SentBody.from({ type, payload: payloads[type] });
      boxes.push(box);
      return sendRead(reply, box);
    });
    for (const type of ['json', 'text'] as const) {
      const res = await app.inject({ method: 'GET', url: `/${type}` });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(payloads[type]);
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(payloads[type])));
      expect(res.headers['content-type']).toBe(`${type === 'json' ? 'application/json' : 'text/plain'}; charset=utf-8`);
    }
    expect(boxes.map((b) => b.peek())).toEqual(['', '']);
    await app.close();
  });
});
