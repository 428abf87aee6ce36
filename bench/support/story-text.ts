/** Names and sentence templates for scripted and seeded campaigns: outcomes, names and numbers, like real play. */
export const LOCATION_NAMES = [
  'Rusty Anchor Tavern',
  'Ashen Road',
  'Old Mine',
  'Temple of Dawn',
  'Blackwater Docks',
  'Thornwood',
  'Market Square',
  'Iron Keep',
  'Sunken Library',
  'Crow Hill',
  'Salt Marsh',
  'Glass Bridge',
];
export const NPC_NAMES = [
  'Brom',
  'Mira',
  'Kael',
  'Sister Yara',
  'Old Tomas',
  'Veska',
  'Captain Rhel',
  'Ilsa',
  'Dunmore',
  'Pell',
  'Nyx',
  'Orrin',
];
export const ALIASES = ['the barkeep', 'the priestess', 'the smith', 'the ferryman', 'the scholar', 'the guard'];
export const ITEMS = [
  'a silver key',
  'the old map',
  'a sealed letter',
  'twelve gold coins',
  'a cracked amulet',
  'the ledger',
  'a vial of nightshade',
  'the iron ring',
];
export const TEMPLATES = [
  '{npc} leans over the table and says the road to {loc} is watched at night, and that {n} riders passed before dawn.',
  'Aria pays {npc} {n} gold for {item} and promises to bring it back before the moon is full.',
  'The party searches the back room of {loc} and finds {item} hidden under a loose board.',
  '{npc} refuses to talk until Aria shows {item}; then admits the Duke owes the guild {n} hundred crowns.',
  'A fight breaks out near the door. Kestrel disarms a thug, and {npc} slips out the back with {item}.',
  'Rain hammers the roof of {loc}. Nobody speaks for a while; {npc} polishes a glass and watches the stairs.',
  '"You did not hear this from me," {npc} whispers, "but the cult meets below {loc} every {n}th night."',
  'Kestrel asks about the missing caravan. {npc} shrugs, says it was last seen near {loc}, and asks for {n} silver.',
  'Aria bandages the wound while {npc} tells the story of how {item} was stolen from the temple vault.',
  'The party agrees to escort {npc} to {loc} in exchange for {item} and a favour from the harbour master.',
];

/** Deterministic pseudo-random numbers (mulberry32), so every run plays the same story. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The n-th name of a list, numbered once the list runs out ("Brom 2"). */
export const nthName = (names: string[], i: number): string =>
  `${names[i % names.length]}${i >= names.length ? ` ${Math.floor(i / names.length) + 1}` : ''}`;

/** One line of play from a random template. */
export function storyLine(random: () => number, npc: string, location: string): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  return pick(TEMPLATES)
    .replace('{npc}', npc)
    .replace('{loc}', location)
    .replace('{item}', pick(ITEMS))
    .replace('{n}', String(2 + Math.floor(random() * 40)));
}
