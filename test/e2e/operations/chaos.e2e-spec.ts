import { chaosFailed, formatChaosReport, runChaos } from '../../../scripts/chaos';

/** 3 cycles of the crash harness (`npm run chaos` runs 50): SIGKILL the built service, restart, verify. */
describe('crash safety (chaos harness, built service, SIGKILL)', () => {
  it('loses nothing acknowledged and does nothing twice across 3 kill/restart cycles', async () => {
    const report = await runChaos({
      cycles: 3,
      campaigns: 8,
      clients: 4,
      seed: Number(process.env.CHAOS_SEED ?? 20261123),
    });
    if (chaosFailed(report)) console.error(`${formatChaosReport(report)}\n${report.failures.slice(0, 10).join('\n')}`);
    expect(report.failures).toEqual([]);
    expect(report).toMatchObject({ cycles: 3, lost: 0, duplicates: 0, gaps: 0, cursorMismatches: 0, notCaughtUp: 0 });
    // It really exercised something: writes answered, memories recorded, requests cut off by the kills.
    expect(report.acknowledged).toBeGreaterThan(80);
    expect(report.memories).toBeGreaterThan(0);
    expect(report.inFlightAtKill + report.repliesDropped).toBeGreaterThan(0);
  }, 120_000);

  it('forks, rewinds and retractions cut by kills are each whole or absent, and the worker finishes the revisions', async () => {
    const report = await runChaos({
      cycles: 3,
      campaigns: 4,
      clients: 3,
      seed: Number(process.env.CHAOS_SEED ?? 20261126),
      timelines: true,
      modes: ['during-fork', 'during-rewind', 'during-revision'],
    });
    if (chaosFailed(report)) console.error(`${formatChaosReport(report)}\n${report.failures.slice(0, 10).join('\n')}`);
    expect(report.failures).toEqual([]);
    expect(report).toMatchObject({ cycles: 3, lost: 0, duplicates: 0, gaps: 0, notCaughtUp: 0 });
    expect(report.forks).toBeGreaterThan(0);
    expect(report.rewinds + report.retractions).toBeGreaterThan(0);
    expect(report.forksVerified).toBeGreaterThan(0);
  }, 180_000);
});
