import { FairScheduler, QueueFull } from './fair-scheduler';

/** A read that runs until the test ends it; `started` records the order reads got a thread. */
class Harness {
  now = 0;
  readonly started: string[] = [];
  private readonly ends = new Map<string, () => void>();
  readonly scheduler: FairScheduler;

  constructor(threads: number, queue = 100, anticipateMs = 50) {
    this.scheduler = new FairScheduler({ threads, queue, anticipateMs, now: () => this.now });
  }

  /** Queues read `name` (its caller: the letters before its number). */
  read(name: string): Promise<string> {
    const key = name.replace(/\d+$/, '');
    return this.scheduler.run(key, () => {
      this.started.push(name);
      return new Promise<string>((resolve) => this.ends.set(name, () => resolve(name)));
    });
  }

  /** Ends a running read and lets the scheduler start the next ones. */
  async end(name: string): Promise<void> {
    const end = this.ends.get(name);
    if (!end) throw new Error(`${name} is not running`);
    this.ends.delete(name);
    end();
    await new Promise((r) => setImmediate(r));
  }

  get running(): string[] {
    return [...this.ends.keys()];
  }
}

describe('FairScheduler (DESIGN §13: one caller’s burst delays itself, not the others)', () => {
  afterEach(() => jest.useRealTimers());

  it('serves waiting callers in turn, each in its own order; a caller with nothing waiting is served next', async () => {
    const h = new Harness(1);
    for (let i = 1; i <= 4; i++) void h.read(`a${i}`);
    expect(h.started).toEqual(['a1']);
    void h.read('b1');
    void h.read('b2');
    void h.read('c1');
    expect(h.scheduler.size).toBe(6);
    for (const name of ['a1', 'c1', 'b1', 'a2', 'b2', 'a3']) await h.end(name);
    expect(h.started).toEqual(['a1', 'c1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    expect(h.scheduler.size).toBe(0);
  });

  it('a lone burst takes every thread', () => {
    const h = new Harness(3);
    for (let i = 1; i <= 5; i++) void h.read(`flood${i}`);
    expect(h.running).toEqual(['flood1', 'flood2', 'flood3']);
    expect(h.scheduler.size).toBe(2);
  });

  it('keeps a thread for another caller that has just read, while its anticipation lasts', async () => {
    const h = new Harness(2);
    void h.read('other1');
    for (let i = 1; i <= 10; i++) void h.read(`flood${i}`);
    expect(h.running).toEqual(['other1', 'flood1']);
    h.now = 10;
    await h.end('other1');
    // other1 finished at 10: the flood, which has a read running, does not take the thread other's next read needs.
    expect(h.running).toEqual(['flood1']);
    h.now = 15;
    void h.read('other2');
    expect(h.running).toEqual(['flood1', 'other2']);
    h.now = 20;
    await h.end('flood1');
    // flood has none running now: it takes the free thread (it is kept only against a caller with one running). It
    // is not held for other2's single read: no read of the burst started in the last 50 ms (flood1 started single).
    expect(h.running).toEqual(['other2', 'flood2']);
  });

  it("holds a burst's next read while a single read runs, for anticipateMs after the burst's last start at most", async () => {
    jest.useFakeTimers();
    const h = new Harness(2, 100, 50);
    const step = async (fn: () => Promise<void>) => {
      const done = fn();
      await jest.advanceTimersByTimeAsync(0);
      await done;
    };
    for (let i = 1; i <= 6; i++) void h.read(`flood${i}`);
    h.now = 100;
    await step(() => h.end('flood1'));
    expect(h.running).toEqual(['flood2', 'flood3']); // a lone burst: every thread, flood3 started at 100
    void h.read('other1');
    h.now = 102;
    await step(() => h.end('flood2'));
    expect(h.running).toEqual(['flood3', 'other1']); // a caller with nothing waiting is served next
    h.now = 110;
    await step(() => h.end('flood3'));
    expect(h.running).toEqual(['other1']); // the burst waits for the single read
    h.now = 151;
    await jest.advanceTimersByTimeAsync(45);
    expect(h.running).toEqual(['other1', 'flood4']); // 50 ms after the burst's last start it goes on regardless
    h.now = 160;
    await step(() => h.end('flood4'));
    expect(h.running).toEqual(['other1']); // held again: flood4 started 9 ms ago
    h.now = 170;
    await step(() => h.end('other1'));
    expect(h.running).toEqual(['flood5']);
  });

  it('gives the kept thread back once the anticipation ends, without waiting for another read to finish', async () => {
    jest.useFakeTimers();
    const h = new Harness(2, 100, 50);
    void h.read('other1');
    for (let i = 1; i <= 3; i++) void h.read(`flood${i}`);
    h.now = 100;
    const ended = h.end('other1');
    await jest.advanceTimersByTimeAsync(0);
    await ended;
    expect(h.running).toEqual(['flood1']);
    h.now = 151;
    await jest.advanceTimersByTimeAsync(52);
    expect(h.running).toEqual(['flood1', 'flood2']);
  });

  it('keeps a thread for each other active caller with none running, never the burst’s own one', async () => {
    const h = new Harness(4);
    for (const name of ['p1', 'q1', 'r1']) void h.read(name);
    for (let i = 1; i <= 10; i++) void h.read(`flood${i}`);
    expect(h.running).toEqual(['p1', 'q1', 'r1', 'flood1']);
    // p and q finish: two threads free, two active callers with none running: both kept.
    await h.end('p1');
    await h.end('q1');
    expect(h.running).toEqual(['r1', 'flood1']);
    // r finishes too: three free, three kept; the flood keeps the one it has.
    await h.end('r1');
    expect(h.running).toEqual(['flood1']);
    // Their anticipation ends: the flood takes the threads.
    h.now = 60;
    await h.end('flood1');
    expect(h.running).toEqual(['flood2', 'flood3', 'flood4', 'flood5']);
  });

  it('with one thread nothing is kept', async () => {
    const h = new Harness(1);
    void h.read('other1');
    void h.read('flood1');
    void h.read('flood2');
    await h.end('other1');
    expect(h.running).toEqual(['flood1']);
    await h.end('flood1');
    expect(h.running).toEqual(['flood2']);
  });

  it('refuses a read past `queue` waiting with QueueFull, and takes reads again once the queue moves', async () => {
    const h = new Harness(1, 2);
    const first = h.read('a1');
    void h.read('a2');
    void h.read('b1');
    await expect(h.read('c1')).rejects.toBeInstanceOf(QueueFull);
    await h.end('a1');
    await expect(first).resolves.toBe('a1');
    void h.read('c1');
    expect(h.scheduler.size).toBe(2);
  });

  it('a read that fails (or throws before it starts) frees its thread and rejects its caller', async () => {
    const h = new Harness(1);
    const boom = h.scheduler.run('a', () => {
      throw new Error('boom');
    });
    const failed = h.scheduler.run('b', () => Promise.reject(new Error('failed')));
    await expect(boom).rejects.toThrow('boom');
    await expect(failed).rejects.toThrow('failed');
    await new Promise((r) => setImmediate(r));
    void h.read('c1');
    expect(h.running).toEqual(['c1']);
  });
});
