/** Thrown by `FairScheduler.run` when `queue` reads already wait (the pool answers 503 BUSY). */
export class QueueFull extends Error {
  constructor(readonly queue: number) {
    super(`${queue} reads are already waiting`);
  }
}

export interface FairSchedulerOptions {
  /** Reads that run at once: the read worker threads. */
  threads: number;
  /** Reads that may wait; one more is refused with `QueueFull`. */
  queue: number;
  /**
   * How long a caller whose read just finished keeps a thread in reserve for its next one (anticipation), while it
   * has no read running: a caller reading one context after another is not made to wait for another caller's build.
   * Also how long a burst is held back at most while single reads run.
   */
  anticipateMs: number;
  now?: () => number;
}

interface Waiting {
  /** Starts the read; `single`: its caller had nothing else running or waiting. */
  start: (single: boolean) => void;
}

/**
 * DESIGN §13 "Reads off the event loop": one caller's burst delays itself, not the others, over the read threads and
 * the reads waiting for them.
 *
 * - **Waiting reads round-robin across callers**: one FIFO per caller and a ring of the callers with reads waiting; a
 *   caller with nothing waiting joins the ring as the next served (as fair queuing serves a new flow).
 * - **The last free threads are kept for the others**: a caller with a read running takes another free thread only if
 *   more threads are free than there are other *active* callers with none running. A caller is active while it has
 *   reads waiting, or for `anticipateMs` after its last read finished: a caller that reads one context after another
 *   then finds a thread free each time, instead of waiting for a build of the burst that took the thread in the
 *   moment between its two reads. With one caller (or one thread) nothing is kept: a lone burst uses every thread.
 * - **Single reads first**: a read whose caller has nothing else running or waiting is *single*. While one runs, a
 *   read of a burst (its caller has another running or waiting) does not start on a free thread, unless no burst read
 *   started for `anticipateMs`: the single read's build gets the cores (on two cores, a build beside another build,
 *   the main thread and the callers waited 10–30 ms to run). Least attained service first, as schedulers favour the
 *   short flows; the bound keeps every burst moving.
 *
 * A read runs through the function given to `run` (the piscina pool's); the scheduler never starts more than `threads`
 * at once, so the pool's own queue stays empty.
 */
export class FairScheduler {
  private readonly waiting = new Map<string, Waiting[]>();
  /** Callers with reads waiting, in the order they are served; `next` is served next. */
  private ring: string[] = [];
  private next = 0;
  private count = 0;
  private readonly running = new Map<string, number>();
  private busy = 0;
  /** When each caller's last read finished, in that order (kept `anticipateMs`: `forget`). */
  private readonly finished = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  /** Single reads running, in all and per caller, and when a burst's read last started. */
  private singles = 0;
  private readonly singlesOf = new Map<string, number>();
  private burstStarted = -Infinity;

  constructor(private readonly options: FairSchedulerOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Reads waiting for a thread. */
  get size(): number {
    return this.count;
  }

  /** Runs `read` for `key`'s caller once the caller's turn and a thread come; `QueueFull` past `queue` waiting. */
  run<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (this.count >= this.options.queue) return Promise.reject(new QueueFull(this.options.queue));
    return new Promise<T>((resolve, reject) => {
      const start = (single: boolean) => {
        if (single) this.countSingle(key, 1);
        else this.burstStarted = this.now();
        this.busy++;
        this.running.set(key, (this.running.get(key) ?? 0) + 1);
        let result: Promise<T>;
        try {
          result = read();
        } catch (err) {
          result = Promise.reject(err);
        }
        void result.then(resolve, reject).finally(() => {
          if (single) this.countSingle(key, -1);
          this.done(key);
        });
      };
      this.enqueue(key, { start });
      this.pump();
    });
  }

  /** Stops the anticipation timer (the pool is closing). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private countSingle(key: string, by: 1 | -1): void {
    this.singles += by;
    const left = (this.singlesOf.get(key) ?? 0) + by;
    if (left === 0) this.singlesOf.delete(key);
    else this.singlesOf.set(key, left);
  }

  private done(key: string): void {
    this.busy--;
    const left = this.running.get(key)! - 1;
    if (left === 0) this.running.delete(key);
    else this.running.set(key, left);
    const now = this.now();
    // Re-inserted, so the map stays in the order reads finished and the expired entries are at its front.
    this.finished.delete(key);
    this.finished.set(key, now);
    this.forget(now);
    this.pump();
  }

  /** Drops the callers whose anticipation has ended: the map holds only those that finished a read lately. */
  private forget(now: number): void {
    for (const [key, at] of this.finished) {
      if (now - at < this.options.anticipateMs) return;
      this.finished.delete(key);
    }
  }

  /** Whether bursts are held for single reads now: one runs, and a burst read started less than `anticipateMs` ago. */
  private holding(now: number): boolean {
    return this.singles > 0 && now - this.burstStarted < this.options.anticipateMs;
  }

  private enqueue(key: string, read: Waiting): void {
    const own = this.waiting.get(key);
    if (own) own.push(read);
    else {
      this.waiting.set(key, [read]);
      this.ring.splice(this.next, 0, key);
    }
    this.count++;
  }

  /** Starts waiting reads while threads are free and a caller may take one. */
  private pump(): void {
    while (this.count > 0 && this.busy < this.options.threads) {
      const at = this.pick();
      if (at < 0) return this.wake();
      const key = this.ring[at];
      const own = this.waiting.get(key)!;
      const single = own.length === 1 && !this.running.has(key);
      const read = own.shift()!;
      this.count--;
      if (own.length === 0) {
        this.waiting.delete(key);
        this.ring.splice(at, 1);
        this.next = this.ring.length === 0 ? 0 : at % this.ring.length;
      } else this.next = (at + 1) % this.ring.length;
      read.start(single);
    }
  }

  /** The ring index of the first caller, from `next`, that may take a free thread now; -1 when none may. */
  private pick(): number {
    const free = this.options.threads - this.busy;
    const now = this.now();
    let kept: number | null = null;
    const holding = this.holding(now);
    for (let i = 0; i < this.ring.length; i++) {
      const at = (this.next + i) % this.ring.length;
      const key = this.ring[at];
      const running = this.running.has(key);
      // A burst waits for the single reads of the others (its own first read was single when it started).
      const othersSingle = this.singles - (this.singlesOf.get(key) ?? 0) > 0;
      if (holding && othersSingle && (running || this.waiting.get(key)!.length > 1)) continue;
      if (!running) return at;
      kept ??= this.keptFor(now);
      // The threads kept are for the other active callers with none running (`key` has one running, so at most
      // `threads − 1` are ever kept, and a burst keeps its one thread however many others are active).
      if (free > kept) return at;
    }
    return -1;
  }

  /** Active callers with no read running: those with reads waiting, and those whose last read finished lately. */
  private keptFor(now: number): number {
    this.forget(now);
    let kept = 0;
    for (const key of this.ring) if (!this.running.has(key)) kept++;
    for (const key of this.finished.keys()) if (!this.running.has(key) && !this.waiting.has(key)) kept++;
    return kept;
  }

  /**
   * Reads wait only for threads kept in anticipation, or bursts for single reads: try again when the first
   * anticipation ends.
   */
  private wake(): void {
    if (this.timer) return;
    const now = this.now();
    let first = this.holding(now) ? this.burstStarted : Infinity;
    for (const [key, at] of this.finished) if (!this.running.has(key)) first = Math.min(first, at);
    if (first === Infinity) return;
    const delay = Math.max(0, first + this.options.anticipateMs - now);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, delay + 1);
    this.timer.unref();
  }
}
