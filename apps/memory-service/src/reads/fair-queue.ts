import type { TaskQueue } from 'piscina';
import { queueOptionsSymbol } from 'piscina';

/** A queued read as piscina hands it to its queue (piscina does not export the type by name). */
type Task = Parameters<TaskQueue['push']>[0];

/** What a read carries for the queue (piscina reads it from the task under `queueOptionsSymbol`). */
export interface FairShare {
  /** Whose read it is: the API key's id, or the client address when no keys are configured. */
  key: string;
}

const keyOf = (task: Task): string => (task[queueOptionsSymbol] as FairShare | null)?.key ?? '';

/**
 * DESIGN §13: waiting reads are served round-robin across callers, so one caller's burst delays itself only. One FIFO
 * per caller and a ring of the callers with reads waiting: `shift` takes the head of the next caller's FIFO; a caller
 * with nothing waiting joins the ring as the next served. Every
 * operation is O(1) but `remove` (an aborted read: O(its caller's reads)).
 */
export class FairTaskQueue implements TaskQueue {
  private readonly waiting = new Map<string, Task[]>();
  /** Callers with reads waiting, in the order they are served; the head is served next. */
  private ring: string[] = [];
  private next = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(task: Task): void {
    const key = keyOf(task);
    const own = this.waiting.get(key);
    if (own) own.push(task);
    else {
      this.waiting.set(key, [task]);
      // A caller that had nothing waiting is served next (as fair queuing serves a new flow): a caller reading one
      // at a time never waits behind another's burst, only for the reads already running.
      this.ring.splice(this.next, 0, key);
    }
    this.count++;
  }

  /** A read piscina took but could not hand to a worker goes back where it was: its caller's next, served next. */
  unshift(task: Task): void {
    const key = keyOf(task);
    const own = this.waiting.get(key);
    if (own) {
      own.unshift(task);
      this.next = this.ring.indexOf(key);
    } else {
      this.waiting.set(key, [task]);
      this.ring.splice(this.next, 0, key);
    }
    this.count++;
  }

  shift(): Task | null {
    if (this.count === 0) return null;
    const key = this.ring[this.next];
    const own = this.waiting.get(key)!;
    const task = own.shift()!;
    this.count--;
    if (own.length === 0) this.drop(key);
    else this.next = (this.next + 1) % this.ring.length;
    return task;
  }

  remove(task: Task): void {
    const key = keyOf(task);
    const own = this.waiting.get(key);
    const at = own ? own.indexOf(task) : -1;
    if (!own || at < 0) return;
    own.splice(at, 1);
    this.count--;
    if (own.length === 0) this.drop(key);
  }

  /** Takes a caller with nothing left out of the ring, keeping `next` on the caller that was to be served next. */
  private drop(key: string): void {
    const at = this.ring.indexOf(key);
    this.waiting.delete(key);
    this.ring.splice(at, 1);
    if (at < this.next) this.next--;
    if (this.next >= this.ring.length) this.next = 0;
  }
}
