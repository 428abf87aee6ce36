import { invalidatingActions, isOverAge, toolsMarkedBy, ToolRule } from './staleness';

const rule = (tool: string, r: Partial<ToolRule>): ToolRule => ({
  tool,
  title: null,
  fields: null,
  invalidatedBy: null,
  maxAgeTicks: null,
  ...r,
});

describe('staleness rules', () => {
  it('applies the seed defaults', () => {
    const stored = ['get_status', 'get_ship', 'get_cargo', 'get_map', 'get_system'].map((tool) => ({ tool, tick: 1 }));
    expect(toolsMarkedBy('travel', null, stored, {})).toEqual(['get_status', 'get_system']);
    expect(toolsMarkedBy('mine', null, stored, {})).toEqual(['get_cargo', 'get_ship']);
    expect(toolsMarkedBy('buy', null, stored, {})).toEqual(['get_cargo', 'get_ship', 'get_status']);
    expect(toolsMarkedBy('sell', null, stored, {})).toEqual(['get_cargo', 'get_ship', 'get_status']);
    expect(toolsMarkedBy('attack', null, stored, {})).toEqual(['get_ship', 'get_status']);
    expect(toolsMarkedBy('dance', null, stored, {})).toEqual([]);
  });

  it('a configured invalidatedBy replaces that tool’s defaults only', () => {
    const rules = {
      get_status: rule('get_status', { invalidatedBy: ['dock'] }),
      get_map: rule('get_map', { invalidatedBy: ['travel'] }),
    };
    expect(invalidatingActions('get_status', rules.get_status)).toEqual(['dock']);
    const stored = ['get_status', 'get_map', 'get_poi'].map((tool) => ({ tool, tick: 1 }));
    expect(toolsMarkedBy('travel', null, stored, rules)).toEqual(['get_map', 'get_poi']);
    expect(toolsMarkedBy('dock', null, stored, rules)).toEqual(['get_status']);
  });

  it('a snapshot taken after the action stays fresh', () => {
    const stored = [
      { tool: 'get_status', tick: 12 },
      { tool: 'get_poi', tick: 10 },
    ];
    expect(toolsMarkedBy('travel', 10, stored, {})).toEqual(['get_poi']);
  });

  it('maxAgeTicks by ticks, else by wall clock', () => {
    const now = new Date('2026-01-01T00:10:00Z');
    expect(isOverAge({ tick: 50, capturedAt: '' }, 10, 61, now, 10)).toBe(true);
    expect(isOverAge({ tick: 51, capturedAt: '' }, 10, 61, now, 10)).toBe(false);
    expect(isOverAge({ tick: null, capturedAt: '2026-01-01T00:08:00Z' }, 10, 61, now, 10)).toBe(true);
    expect(isOverAge({ tick: null, capturedAt: '2026-01-01T00:09:00Z' }, 10, 61, now, 10)).toBe(false);
    expect(isOverAge({ tick: 0, capturedAt: '' }, null, 1000, now, 10)).toBe(false);
  });
});
