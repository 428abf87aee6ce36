import { TiktokenCounter } from '@app/context';
import { renderHud } from './hud';

const counter = new TiktokenCounter();
const count = (t: string) => counter.count(t);

describe('HUD line', () => {
  it('keeps the stats in order, joined by •', () => {
    const hud = renderHud(
      [
        { label: 'HP', value: '12/20' },
        { label: 'Gold', value: 35 },
        { label: 'Status', value: 'poisoned' },
      ],
      40,
      count,
    );
    expect(hud.text).toBe('HUD: HP 12/20 • Gold 35 • Status poisoned');
    expect(hud.dropped).toEqual([]);
  });

  it('drops fields from the end to stay within the budget, and reports them', () => {
    const stats = Array.from({ length: 12 }, (_, i) => ({ label: `Stat${i}`, value: `value number ${i}` }));
    const hud = renderHud(stats, 40, count);
    expect(count(hud.text)).toBeLessThanOrEqual(40);
    expect(hud.tokens).toBe(count(hud.text));
    expect(hud.dropped.length).toBeGreaterThan(0);
    const kept = stats.length - hud.dropped.length;
    expect(hud.dropped.map((d) => d.ref)).toEqual(stats.slice(kept).map((s) => s.label));
    expect(hud.text.startsWith('HUD: Stat0 value number 0 • Stat1')).toBe(true);
    expect(count(`${hud.text} • ${stats[kept].label} ${stats[kept].value}`)).toBeGreaterThan(40);
  });
});
