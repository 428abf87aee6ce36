// Lorekeeper inspector: one readable line per timeline event (never raw JSON), imported by inspector.js.

/** "location tavern", "npc mira", "world" (the world scope has one subject). */
export const scopeName = (scope, subject) => (scope === 'world' || !subject ? scope : `${scope} ${subject}`);

/** Which rolling-summary chain an update belongs to (DESIGN §8: the dm's, the public view, or one player's). */
export function summaryChain(d) {
  if (d.viewer) return `${String(d.viewer).replace(/^player:/, '')}'s summary`;
  if (d.publicView) return 'public summary (no viewer)';
  return `dm summary${d.alsoPublic ? ' (also the public one)' : ''}`;
}

const range = (d) =>
  d.sinceMessageIndex === undefined ? '' : ` · messages ${d.sinceMessageIndex}–${d.throughMessageIndex}`;
const quoted = (s) => (s ? `"${s}"` : '');
const at = (loc) => (loc ? ` at ${loc}` : '');

const TEXT = {
  MessageRecorded: (d) => `#${d.index} ${d.speaker ?? d.role}: ${d.content}`,
  MessagesRetracted: (d) => `retracted message(s) ${d.indexes.join(', ')}${d.reason ? `: ${d.reason}` : ''}`,
  MemoryRevised: (d) => `memory ${d.memoryId} revised (its retracted inputs left out): ${d.summary}`,
  MemoryWithdrawn: (d) => `memory ${d.memoryId} withdrawn: every input was ${d.reason}`,
  MemoryCorrected: (d) => `memory ${d.memoryId} corrected by the game master: ${d.summary}`,
  MemoryDeleted: (d) => `memory ${d.memoryId} deleted by the game master`,
  CampaignCreated: (d) => `campaign ${quoted(d.name)} created`,
  CampaignSettingsChanged: (d) => `settings: ${fields(d)}`,
  CampaignForked: (d) => `forked from ${d.parentId} at v${d.parentVersion}`,
  CampaignRewound: (d) =>
    `rewound from v${d.fromVersion} to v${d.toVersion}` + (d.keptAs ? `; the old story kept as ${d.keptAs}` : ''),
  MemoryRecorded: (d) => `${scopeName(d.scope, d.subjectId)}${range(d)} — ${d.summary}`,
  MemorySkipped: (d) => `${scopeName(d.scope, d.subjectId)} skipped after ${d.attempts} attempt(s): ${d.reason}`,
  RollingSummaryUpdated: (d) => `${summaryChain(d)}${range(d)} — ${d.summary}`,
  GlossaryTermAdded: (d) => `glossary: ${d.term} — ${d.definition}`,
  GlossaryTermSet: (d) => `glossary (game master): ${d.term} — ${d.definition}`,
  GlossaryTermHidden: (d) => `glossary: ${d.term} hidden`,
  GlossaryTermWithdrawn: (d) => `glossary: ${d.term} withdrawn (its message #${d.coinedMessageIndex} was retracted)`,
  LocationChanged: (d) => `party moves ${d.fromLocationId ?? 'nowhere'} → ${d.toLocationId}`,
  LocationRegistered: (d) => `location ${d.locationId} ${quoted(d.name)}${d.dangerLevel ? `, ${d.dangerLevel}` : ''}`,
  LocationRenamed: (d) => `location ${d.locationId} now ${quoted(d.name)}`,
  LocationStateUpdated: (d) =>
    `location ${d.locationId}` +
    (d.dangerLevel ? ` danger ${d.fromDangerLevel ?? 'none'} → ${d.dangerLevel}` : '') +
    (d.completedEncounterId ? ` · encounter ${d.completedEncounterId} completed` : ''),
  NpcRegistered: (d) => `NPC ${d.npcId} ${quoted(d.name)}${at(d.locationId)}`,
  NpcUpdated: (d) => `NPC ${d.npcId} ${quoted(d.name)}${at(d.locationId)}`,
  QuestRegistered: (d) => `quest ${d.questId} ${quoted(d.name)}, ${d.objectives?.length ?? 0} objective(s)`,
  ObjectiveCompleted: (d) => `quest ${d.questId}: objective ${d.objectiveId} completed`,
  QuestCompleted: (d) => `quest ${d.questId} completed`,
  ActProgressed: (d) => `act ${d.fromActId ?? 'none'} → ${d.toActId}`,
  RoundEnded: (d) => `round ${d.round}`,
  BibleUpdated: (d) => `bible: ${clip(d.text)}${d.dmOnly ? ' (and a dm-only part)' : ''}`,
};

const clip = (s, n = 160) => (String(s).length > n ? `${String(s).slice(0, n)}…` : String(s));

/** Any other event: its plain fields as "name value" pairs, nested values left out. */
function fields(d) {
  const plain = Object.entries(d).filter(([, v]) => v === null || typeof v !== 'object');
  return clip(plain.map(([k, v]) => `${k} ${v}`).join(' · ') || '(no details)');
}

export function describe(item) {
  const d = item.data ?? {};
  try {
    return (TEXT[item.type] ?? fields)(d);
  } catch {
    return fields(d); // an event of an older shape: never a broken row
  }
}
