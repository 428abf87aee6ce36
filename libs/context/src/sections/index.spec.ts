import { AGENTS, SECTION_ORDER } from '../context.types';
import { DROP_ORDER, PRESETS, SECTIONS, stateKindsOf } from '.';

describe('SECTIONS', () => {
  it('derives the presets each agent had before the table (DESIGN §8), in SECTION_ORDER', () => {
    const dm = ['bible', 'glossary', 'digest', 'scene', 'previously', 'location', 'npc', 'world', 'recall', 'recent'];
    const seated = [...dm.slice(0, 2), 'hud', ...dm.slice(2)]; // players and npcs also see their HUD line
    expect(PRESETS).toEqual({
      narrative: ['location', 'npc', 'world'],
      dm,
      player: seated,
      npc: seated,
      agent: ['digest', 'state', 'recent'],
    });
    for (const agent of AGENTS) expect(PRESETS[agent].length).toBeGreaterThan(0);
  });

  it('has one entry per key of SECTION_ORDER, and drops only known keys', () => {
    expect(Object.keys(SECTIONS).sort()).toEqual([...SECTION_ORDER].sort());
    for (const stage of DROP_ORDER) for (const key of stage.keys) expect(SECTION_ORDER).toContain(key);
  });

  it('names the state kinds an as-of context assembles: no quest log for narrative, no encounters for anyone', () => {
    expect(stateKindsOf(PRESETS.narrative).sort()).toEqual(['head', 'npc', 'player']);
    expect(stateKindsOf(PRESETS.dm).sort()).toEqual(
      ['bible', 'fact', 'glossary', 'head', 'location', 'npc', 'player', 'quest'].sort(),
    );
    expect(stateKindsOf(['scene'])).toContain('quest');
    for (const agent of AGENTS) {
      const kinds = stateKindsOf(PRESETS[agent]);
      for (const grows of ['encounter', 'round', 'account']) expect(kinds).not.toContain(grows);
    }
  });
});
