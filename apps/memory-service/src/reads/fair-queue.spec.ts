import { queueOptionsSymbol } from 'piscina';
import { FairTaskQueue } from './fair-queue';

const task = (key: string, n: number) => ({ [queueOptionsSymbol]: { key }, n });
type T = ReturnType<typeof task>;
const drain = (q: FairTaskQueue) => {
  const out: string[] = [];
  for (let t = q.shift() as T | null; t; t = q.shift() as T | null) out.push(`${t[queueOptionsSymbol].key}${t.n}`);
  return out;
};

describe('FairTaskQueue (DESIGN §13: waiting reads round-robin across callers)', () => {
  it('serves callers in turn, each caller in its own order', () => {
    const q = new FairTaskQueue();
    for (let i = 1; i <= 4; i++) q.push(task('a', i));
    expect((q.shift() as T).n).toBe(1);
    q.push(task('b', 1));
    q.push(task('b', 2));
    q.push(task('c', 1));
    expect(q.size).toBe(6);
    expect(drain(q)).toEqual(['c1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeNull();
  });

  it('a caller arriving behind a long burst is served next, each time it has nothing waiting', () => {
    const q = new FairTaskQueue();
    for (let i = 1; i <= 200; i++) q.push(task('flood', i));
    expect((q.shift() as T).n).toBe(1);
    q.push(task('other', 1));
    q.push(task('single', 1));
    expect(drain(q).slice(0, 4)).toEqual(['single1', 'other1', 'flood2', 'flood3']);
    for (let i = 1; i <= 3; i++) q.push(task('flood', i));
    q.shift();
    q.push(task('single', 2));
    expect((q.shift() as T)[queueOptionsSymbol].key).toBe('single');
  });

  it('remove takes one read out and keeps the turn order of the rest', () => {
    const q = new FairTaskQueue();
    const b1 = task('b', 1);
    q.push(task('a', 1));
    q.push(b1);
    q.push(task('c', 1));
    q.push(task('a', 2));
    q.remove(b1);
    q.remove(task('z', 9)); // not queued: nothing happens
    expect(q.size).toBe(3);
    expect(drain(q)).toEqual(['c1', 'a1', 'a2']);
  });

  it("unshift puts a read back as its caller's next, served next", () => {
    const q = new FairTaskQueue();
    q.push(task('a', 1));
    q.push(task('a', 2));
    q.push(task('b', 1));
    const first = q.shift()!;
    q.unshift(first);
    expect(drain(q)).toEqual(['b1', 'a1', 'a2']);
    q.push(task('a', 3));
    q.push(task('a', 4));
    const a3 = q.shift()!;
    q.unshift(a3);
    expect(drain(q)).toEqual(['a3', 'a4']);
  });

  it('reads without a caller share one anonymous turn', () => {
    const q = new FairTaskQueue();
    q.push(task('a', 1));
    q.push({ [queueOptionsSymbol]: null } as never);
    expect(q.size).toBe(2);
    expect(q.shift()).toEqual({ [queueOptionsSymbol]: null });
    expect((q.shift() as T).n).toBe(1);
  });
});
