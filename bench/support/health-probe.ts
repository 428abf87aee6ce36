import { ChildProcess, spawn } from 'node:child_process';

/** One /health round trip seen by the probe process: when it started (epoch ms) and how long it took. */
export interface Probe {
  at: number;
  ms: number;
}

// Runs in a process of its own: the loaded service's event loop cannot delay the probe's own clock or requests.
const SCRIPT = `
const url = process.argv[1];
const every = Number(process.argv[2]);
const tick = async () => {
  const at = Date.now();
  const started = performance.now();
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    process.stdout.write(JSON.stringify({ at, ms: performance.now() - started, status: res.status }) + '\\n');
  } catch (err) {
    process.stdout.write(JSON.stringify({ at, ms: performance.now() - started, status: 0 }) + '\\n');
  }
  setTimeout(tick, every);
};
tick();
`;

/** Polls `url` every `everyMs` from a child process (§13: "blocks others" is /health seen from another process). */
export class HealthProbe {
  private readonly child: ChildProcess;
  private readonly probes: Probe[] = [];
  private buffer = '';

  constructor(url: string, everyMs = 10) {
    this.child = spawn(process.execPath, ['-e', SCRIPT, url, String(everyMs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      const lines = this.buffer.split('\n');
      this.buffer = lines.pop() ?? '';
      for (const line of lines) if (line) this.probes.push(JSON.parse(line) as Probe);
    });
  }

  /** Waits until the probe has answered at least `n` more times (it is running and the service answers). */
  async ready(n = 5): Promise<void> {
    const target = this.probes.length + n;
    while (this.probes.length < target) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * Runs `work` and returns its wall time and the slowest /health round trip that overlapped it (probes started
   * before it ended and finished after it began), after a short tail so a probe stuck behind the work is counted.
   */
  async during(work: () => Promise<unknown>): Promise<{ workMs: number; maxMs: number; probes: number }> {
    const from = Date.now();
    const started = performance.now();
    await work();
    const workMs = performance.now() - started;
    const to = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    const overlapping = this.probes.filter((p) => p.at <= to && p.at + p.ms >= from);
    return { workMs, maxMs: Math.max(0, ...overlapping.map((p) => p.ms)), probes: overlapping.length };
  }

  stop(): void {
    this.child.kill();
  }
}
