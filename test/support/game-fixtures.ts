/** Deterministic SpaceMolt-like tool results for tests and the state benchmark. */

/** A get_map result: `systems` entries of about 390 bytes each (487 systems ≈ 190 KB). */
export function bigMap(systems = 487) {
  return {
    galaxy: 'Orion Spur',
    version: 3,
    systems: Array.from({ length: systems }, (_, i) => ({
      id: `sys-${i}`,
      name: `System ${i}`,
      x: (i * 37) % 1000,
      y: (i * 91) % 1000,
      faction: ['federation', 'pirates', 'miners', 'traders'][i % 4],
      security: ['high', 'low', 'null'][i % 3],
      links: [`sys-${(i + 1) % systems}`, `sys-${(i + 7) % systems}`, `sys-${(i + 13) % systems}`],
      stations: [{ id: `st-${i}`, name: `Station ${i}`, services: ['market', 'repair', 'refuel'] }],
      planets: [
        { name: `System ${i} I`, type: 'rocky', moons: i % 3 },
        { name: `System ${i} II`, type: 'gas giant', moons: i % 7 },
      ],
      description: `A ${['quiet', 'busy', 'dangerous', 'remote'][i % 4]} system on the spur, charted in survey ${i}.`,
    })),
  };
}

export function status(turn: number) {
  return {
    player: 'Aria',
    credits: 1000 + turn * 15,
    location: { system: `sys-${turn % 40}`, poi: `belt-${turn % 5}`, docked: turn % 2 === 0 },
    ship: { name: 'Kestrel', class: 'hauler', hull: 100 - (turn % 10), fuel: 80 - (turn % 20) },
    skills: { mining: 12, trading: 8, combat: 3 },
    missions: [{ id: 'm1', title: 'Deliver ore to Station 4', reward: 500 }],
    notifications: Array.from({ length: 8 }, (_, i) => `Note ${turn}-${i}: market prices moved in sys-${i}`),
    log: Array.from({ length: 12 }, (_, i) => ({
      at: turn * 10 + i,
      text: `Event ${i} of turn ${turn}: routine telemetry and chatter`,
    })),
  };
}

export function ship(turn: number) {
  return {
    id: 'ship-1',
    name: 'Kestrel',
    class: 'hauler',
    hull: { current: 100 - (turn % 10), max: 100 },
    shield: { current: 50, max: 50 },
    cargo: { used: turn % 50, capacity: 50, items: [{ item: 'ore', qty: turn % 50 }] },
    modules: Array.from({ length: 10 }, (_, i) => ({
      slot: i,
      id: `mod-${i}`,
      name: `Module ${i}`,
      power: i * 3,
      heat: i * 2,
      status: 'online',
    })),
    upgrades: Array.from({ length: 15 }, (_, i) => ({
      id: `up-${i}`,
      name: `Upgrade ${i}`,
      effect: `+${i}% efficiency on subsystem ${i}`,
    })),
  };
}
