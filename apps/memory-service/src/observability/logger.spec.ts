import Fastify from 'fastify';
import { Logging } from './logger';

/** The nestjs-pino replacement: request lines with the x-request-id, Nest logs as fields, redaction, silence. */
describe('Logging', () => {
  const capture = () => {
    const lines: string[] = [];
    return {
      lines,
      destination: { write: (l: string) => void lines.push(l) },
      parsed: () => lines.map((l) => JSON.parse(l)),
    };
  };

  async function serve(logging: Logging) {
    const app = Fastify();
    logging.installRequestLogging(app);
    app.get('/x', async () => {
      logging.nestLogger().log({ msg: 'inside the handler', campaignId: 'c1' }, 'ctx');
      return { ok: true };
    });
    await app.ready();
    return app;
  }

  it('logs each request once with its x-request-id, and scopes Nest logs made while serving it', async () => {
    const out = capture();
    const logging = new Logging({ level: 'info', destination: out.destination });
    const app = await serve(logging);
    await app.inject({
      method: 'GET',
      url: '/x',
      headers: { 'x-request-id': 'req-7', authorization: 'Bearer tok-secret' },
    });
    await app.close();
    const lines = out.parsed();
    const done = lines.filter((l) => l.msg === 'request completed');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ correlationId: 'req-7', req: { id: 'req-7' }, res: { statusCode: 200 } });
    expect(done[0].req.headers.authorization).toBe('[Redacted]');
    expect(out.lines.join('\n')).not.toContain('tok-secret');
    const inside = lines.find((l) => l.msg === 'inside the handler');
    expect(inside).toMatchObject({ campaignId: 'c1', context: 'ctx', correlationId: 'req-7' });
  });

  it('below info writes no request lines and opens no per-request scope (it would cost every request)', async () => {
    const out = capture();
    const logging = new Logging({ level: 'warn', destination: out.destination });
    const app = Fastify();
    logging.installRequestLogging(app);
    app.get('/warns', async () => {
      logging.nestLogger().warn({ msg: 'odd input', campaignId: 'c1' }, 'ctx');
      return { ok: true };
    });
    await app.ready();
    await app.inject({ method: 'GET', url: '/warns', headers: { 'x-request-id': 'req-2' } });
    await app.close();
    const lines = out.parsed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'odd input', context: 'ctx' });
    expect(lines[0]).not.toHaveProperty('req');
    expect(lines[0]).not.toHaveProperty('correlationId');
  });

  it('maps Nest calls like nestjs-pino: a string message, an Error, an exception handler stack', () => {
    const out = capture();
    const nest = new Logging({ level: 'info', destination: out.destination }).nestLogger();
    nest.log('plain words', 'boot');
    nest.warn(new Error('boom'), 'worker');
    nest.error('handler failed', 'Error: x\n    at f (file.ts:1:1)', 'ExceptionsHandler');
    const [plain, err, stack] = out.parsed();
    expect(plain).toMatchObject({ level: 30, msg: 'plain words', context: 'boot' });
    expect(err).toMatchObject({ level: 40, context: 'worker', err: { message: 'boom' } });
    expect(stack).toMatchObject({ level: 50, context: 'ExceptionsHandler', err: { message: 'handler failed' } });
    expect(stack.err.stack).toContain('at f (file.ts:1:1)');
  });

  it('writes nothing at the silent level', async () => {
    const out = capture();
    const logging = new Logging({ level: 'silent', destination: out.destination });
    const app = await serve(logging);
    await app.inject({ method: 'GET', url: '/x' });
    logging.nestLogger().error('not written');
    await app.close();
    expect(out.lines).toEqual([]);
  });
});
