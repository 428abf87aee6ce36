import {
  CampaignRecord,
  CampaignState,
  CampaignStateRowRecord,
  emptyState,
  evolve,
  GameEvent,
  Message,
  MessageRecord,
  PUBLIC_WITNESS,
  stateRowsOf,
  toMessageRecord,
} from '@app/campaign';
import { EventRecord, gameStream, memoryStream, TypeOrmEventStore } from '@app/event-store';
import { Database } from '@app/database';
import { RebuildReport, SearchIndexRebuilder } from '@app/recall';
import { createSearchIndex } from '@app/search';
import {
  CursorRecord,
  MemoryCheckpointRecord,
  MemoryHistoryRecord,
  MemoryWitnessRecord,
  MemoryRecord,
  MemoryReader,
  MemoryRecordedData,
  memoryId,
  npcWindow,
  toMemoryRecord,
} from '@app/memory';
import { DataSource, EntityTarget } from 'typeorm';
import { openServiceDb, SqliteDb } from './sqlite';
import { ALIASES, LOCATION_NAMES, nthName, NPC_NAMES, rng, storyLine } from './story-text';

/** The shape of one seeded campaign. */
export interface HistorySpec {
  campaignId: string;
  /** Game-stream events to write (the last scene may overshoot by a few). */
  events: number;
  /** Stop after this many scenes (location visits) instead. */
  scenes?: number;
  locations?: number;
  npcs?: number;
  /** Mean messages per scene (each scene is ±50 % of it). */
  messagesPerScene?: number;
  /** A world event (objective, quest, act, encounter) every N scenes. */
  worldEveryScenes?: number;
  /**
   * `processed`: memories, cursors, memory stream and checkpoint as the worker would have left them.
   * `pending`: no memories and the checkpoint at 0, so the service's worker catches up at boot.
   */
  worker: 'processed' | 'pending';
  seed?: number;
}

export interface SeedResult {
  campaignId: string;
  events: number;
  messages: number;
  memories: number;
  /** Triggers (location changes with a previous location, world events) the worker has to handle. */
  triggers: number;
  /**
   * Size the state would have as one JSON document (what every write serialized before the state rows,
   * docs/state.md): it grows with registered quests and completed encounters.
   */
  stateBytes: number;
  /** State rows written (every version of every entity). */
  stateRows: number;
  seconds: number;
}

type Row = Record<string, unknown>;

/**
 * Seeds long campaign histories straight into a SQLite file, fast: the schema comes from the service's
 * own migrations, the rows are built by the same functions the projectors use (toMessageRecord,
 * toMemoryRecord, `evolve` + `stateRowsOf` for the versioned state rows) and inserted with prepared
 * statements in big transactions. The search index is filled on request (`indexSearch`).
 */
export class HistorySeeder {
  private readonly inserts = new Map<EntityTarget<unknown>, (row: Row) => void>();

  private constructor(
    private readonly ds: DataSource,
    readonly db: SqliteDb,
  ) {}

  static async open(dbPath: string): Promise<HistorySeeder> {
    const ds = await openServiceDb(dbPath);
    const db = (ds.driver as unknown as { databaseConnection: SqliteDb }).databaseConnection;
    db.pragma('synchronous = OFF'); // a seed that crashes is simply re-run
    return new HistorySeeder(ds, db);
  }

  /**
   * A new file at `dbPath` with one campaign per size, the worker caught up (`processed`), closed again: what the
   * suites that then serve the file start with. `each` runs after each campaign, before the file closes.
   */
  static async seedAll(
    dbPath: string,
    sizes: number[],
    idOf: (events: number) => string,
    each?: (seeder: HistorySeeder, seeded: SeedResult) => void,
  ): Promise<SeedResult[]> {
    const seeder = await HistorySeeder.open(dbPath);
    try {
      return sizes.map((events) => {
        const seeded = seeder.seed({ campaignId: idOf(events), events, worker: 'processed' });
        each?.(seeder, seeded);
        return seeded;
      });
    } finally {
      await seeder.close();
    }
  }

  /**
   * Fills the search index (FTS5) of everything seeded so far, through the service's own rebuilder: messages,
   * reasoning and memories. Opt-in (minutes at 1M events): the context bench does not search, a fork copies it.
   */
  async indexSearch(): Promise<RebuildReport> {
    const db = new Database(this.ds);
    const store = new TypeOrmEventStore(db);
    return new SearchIndexRebuilder(db, store, createSearchIndex(db), new MemoryReader(db)).rebuild();
  }

  async close(): Promise<void> {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    await this.ds.destroy();
  }

  /** A prepared INSERT built from the entity's TypeORM metadata, so columns follow the entity. */
  private insert(entity: EntityTarget<unknown>): (row: Row) => void {
    const cached = this.inserts.get(entity);
    if (cached) return cached;
    const meta = this.ds.getMetadata(entity);
    const cols = meta.columns.filter((c) => !c.isGenerated);
    const stmt = this.db.prepare(
      `INSERT INTO "${meta.tableName}" (${cols.map((c) => `"${c.databaseName}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    );
    const value = (v: unknown) => (typeof v === 'boolean' ? Number(v) : (v ?? null)); // SQLite has no booleans
    const fn = (row: Row) => void stmt.run(...cols.map((c) => value(row[c.propertyName])));
    this.inserts.set(entity, fn);
    return fn;
  }

  seed(spec: HistorySpec): SeedResult {
    const t0 = performance.now();
    const random = rng(spec.seed ?? 42);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const cid = spec.campaignId;
    const nLocations = spec.locations ?? 12;
    const nNpcs = spec.npcs ?? 24;
    const perScene = spec.messagesPerScene ?? 30;
    const worldEvery = spec.worldEveryScenes ?? 3;
    const processed = spec.worker === 'processed';
    const start = Date.parse('2026-01-01T18:00:00.000Z');

    const eventRow = this.insert(EventRecord);
    const messageRow = this.insert(MessageRecord);
    const memoryRow = this.insert(MemoryRecord);
    const historyRow = this.insert(MemoryHistoryRecord);
    const witnessRow = this.insert(MemoryWitnessRecord);
    let pendingEvents: Row[] = [];
    let pendingMessages: Row[] = [];
    let pendingMemories: Row[] = [];
    let pendingHistory: Row[] = [];
    let pendingWitnesses: Row[] = [];
    const flush = this.db.transaction(() => {
      for (const r of pendingEvents) eventRow(r);
      for (const r of pendingMessages) messageRow(r);
      for (const r of pendingMemories) memoryRow(r);
      for (const r of pendingHistory) historyRow(r);
      for (const r of pendingWitnesses) witnessRow(r);
    });
    const flushAll = () => {
      flush();
      pendingEvents = [];
      pendingMessages = [];
      pendingMemories = [];
      pendingHistory = [];
      pendingWitnesses = [];
    };

    let state: CampaignState = emptyState(cid);
    let version = 0;
    let memoryVersion = 0;
    let memories = 0;
    let triggers = 0;
    const cursors = new Map<string, number>();
    // Every version of every state entity; a row is closed (validTo) by the next one of its entity.
    const stateRows: Row[] = [];
    const currentRow = new Map<string, Row>();
    const recordedAt = (v: number) => new Date(start + v * 20_000).toISOString();
    const meta = JSON.stringify({ correlationId: 'seed' });

    const append = (event: GameEvent): number => {
      version += 1;
      const at = recordedAt(version);
      state = { ...evolve(state, event, at), version };
      for (const r of stateRowsOf(event, state)) {
        const entity = `${r.kind}\u0000${r.key}`;
        const prev = currentRow.get(entity);
        if (prev) prev.validTo = version;
        if (r.doc === null) currentRow.delete(entity);
        else {
          const row: Row = { campaignId: cid, kind: r.kind, key: r.key, validFrom: version, validTo: null, doc: r.doc };
          stateRows.push(row);
          currentRow.set(entity, row);
        }
      }
      pendingEvents.push({
        streamId: gameStream(cid),
        version,
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: meta,
        recordedAt: at,
      });
      if (event.type === 'MessageRecorded')
        pendingMessages.push(toMessageRecord(cid, event.data, version) as unknown as Row);
      if (pendingEvents.length >= 20_000) flushAll();
      return version;
    };

    const remember = (
      trigger: number,
      scope: 'location' | 'npc' | 'world',
      subjectId: string,
      window: Message[],
      summary: string,
      extra: Partial<MemoryRecordedData>,
    ) => {
      if (!processed || window.length === 0) return;
      const through = window[window.length - 1].index;
      const data: MemoryRecordedData = {
        memoryId: memoryId(cid, trigger, scope, subjectId),
        scope,
        subjectId,
        summary,
        tags: extra.tags ?? [],
        locationId: extra.locationId ?? null,
        npcIds: scope === 'npc' ? [subjectId] : [],
        questId: extra.questId ?? null,
        encounterId: extra.encounterId ?? null,
        sinceMessageIndex: window[0].index,
        throughMessageIndex: through,
        sinceTimestamp: window[0].at,
        createdAt: recordedAt(trigger),
        triggerVersion: trigger,
        cursor: through,
        inputIndexes: window.map((m) => m.index),
        attempts: 1,
        inputTokens: 0,
        outputTokens: 0,
      };
      memoryVersion += 1;
      memories += 1;
      cursors.set(`${scope}\u0000${subjectId}`, through);
      pendingEvents.push({
        streamId: memoryStream(cid),
        version: memoryVersion,
        type: 'MemoryRecorded',
        data: JSON.stringify(data),
        metadata: JSON.stringify({ correlationId: 'seed', causationId: `${gameStream(cid)}@${trigger}` }),
        recordedAt: data.createdAt,
        // Columns of the timelines schema (ignored where the entity lacks them): M(V) seeks on it.
        triggerVersion: trigger,
      });
      pendingMemories.push(toMemoryRecord(cid, data, memoryVersion) as unknown as Row);
      // Every seeded message is public, so the public view witnessed every memory (as the projector records it):
      // without the row a public read walks the subject's whole memory list looking for one it may serve.
      pendingWitnesses.push({ campaignId: cid, viewerId: PUBLIC_WITNESS, memoryId: data.memoryId });
      // Its first wording, as the projector records it (DESIGN §10 history; as-of reads and forks copy it).
      pendingHistory.push({
        campaignId: cid,
        memoryId: data.memoryId,
        seq: 1,
        validFrom: trigger,
        revision: 1,
        status: 'active',
        reason: 'recorded',
        origin: 'model',
        summary,
        inputIndexes: JSON.stringify(data.inputIndexes),
        memoryVersion,
        searchSeq: memoryVersion,
        at: data.createdAt,
      });
    };

    const gist = (window: Message[], sentences: number) =>
      window
        .slice(0, sentences)
        .map((m) => m.content.split(/(?<=[.!?])\s/)[0])
        .join(' ');

    append({
      type: 'CampaignCreated',
      data: { campaignId: cid, name: `Seeded saga ${cid}`, settings: { perRoleMemory: false } },
    });
    for (let i = 0; i < nLocations; i++) {
      append({
        type: 'LocationRegistered',
        data: { locationId: `loc-${i}`, name: nthName(LOCATION_NAMES, i), dangerLevel: 'MODERATE' },
      });
    }
    for (let i = 0; i < nNpcs; i++) {
      append({
        type: 'NpcRegistered',
        data: {
          npcId: `npc-${i}`,
          name: nthName(NPC_NAMES, i),
          aliases: i < ALIASES.length ? [ALIASES[i]] : [],
          locationId: `loc-${i % nLocations}`,
        },
      });
    }
    let questNo = 0;
    const newQuest = () => {
      questNo += 1;
      append({
        type: 'QuestRegistered',
        data: {
          questId: `quest-${questNo}`,
          name: `The ${pick(['Lost', 'Burning', 'Silent', 'Hidden'])} ${pick(['Crown', 'Caravan', 'Oath', 'Bell'])} ${questNo}`,
          objectives: [1, 2, 3, 4].map((o) => ({ id: `obj-${o}`, name: `Step ${o}` })),
        },
      });
    };
    newQuest();

    let scene: Message[] = [];
    let sinceWorld: Message[] = [];
    let act = 0;
    let encounter = 0;
    // The party's base: every 4th scene, and the last one, so every campaign ends where it has memories;
    // its residents never leave and nobody moves in, so every size serves the same context shape.
    const home = 'loc-0';
    const playScene = (sceneNo: number, forceHome: boolean) => {
      const from = state.currentLocationId;
      const movable = Object.values(state.npcs).filter((n) => n.locationId !== home);
      if (random() < 0.3 && movable.length && nLocations > 2) {
        const npc = pick(movable);
        const dest = `loc-${1 + Math.floor(random() * (nLocations - 1))}`;
        append({
          type: 'NpcUpdated',
          data: {
            npcId: npc.id,
            name: npc.name,
            aliases: npc.aliases,
            locationId: dest,
            fromLocationId: npc.locationId,
          },
        });
      }
      let to: string;
      if ((forceHome || sceneNo % 4 === 3) && from !== home) to = home;
      else {
        // Scenes happen where someone is to talk to, so every context has NPCs present.
        const peopled = [...new Set(Object.values(state.npcs).map((n) => n.locationId))].filter(
          (l): l is string => l !== null && l !== from && l !== home,
        );
        to = peopled.length ? pick(peopled) : `loc-${1 + Math.floor(random() * (nLocations - 1))}`;
        if (to === from) to = home;
      }
      const present = from ? Object.values(state.npcs).filter((n) => n.locationId === from) : [];
      const trigger = append({
        type: 'LocationChanged',
        data: { fromLocationId: from, toLocationId: to, npcsPresent: present.map((n) => n.id) },
      });
      if (from) {
        triggers += 1;
        const place = state.locations[from].name;
        remember(trigger, 'location', from, scene, `At ${place}: ${gist(scene, 3)}`, {
          tags: [`location:${from}`],
          locationId: from,
        });
        for (const npc of present) {
          const window = npcWindow(npc, scene);
          remember(trigger, 'npc', npc.id, window, `${npc.name}'s memory of ${place}: ${gist(window, 2)}`, {
            tags: [`npc:${npc.id}`, `location:${from}`],
            locationId: from,
          });
        }
      }
      scene = [];
      const here = Object.values(state.npcs).filter((n) => n.locationId === to);
      const count = Math.max(1, Math.round(perScene * (0.5 + random())));
      for (let k = 0; k < count && version < spec.events + perScene; k++) {
        const npc = here.length ? pick(here) : state.npcs['npc-0'];
        const role = k % 3 === 0 ? 'dm' : k % 3 === 1 ? 'player' : 'npc';
        const content = storyLine(random, npc.name, state.locations[to].name);
        const message: Message = {
          index: state.messageCount,
          role,
          speaker: role === 'dm' ? null : role === 'player' ? 'Aria' : npc.name,
          content,
          locationId: to,
          npcIds: role === 'npc' ? [npc.id] : [],
          at: recordedAt(version + 1),
          round: state.round,
          visibility: 'public',
          audience: [],
          toolCalls: [],
          toolCallId: null,
          reasoning: null,
        };
        append({ type: 'MessageRecorded', data: message });
        scene.push(message);
        sinceWorld.push(message);
      }
      if ((sceneNo + 1) % worldEvery === 0) {
        const kind = Math.floor((sceneNo + 1) / worldEvery) % 3;
        let world: number;
        let description: string;
        let extra: Partial<MemoryRecordedData>;
        if (kind === 0) {
          act += 1;
          world = append({
            type: 'ActProgressed',
            data: { fromActId: act > 1 ? `act-${act - 1}` : null, toActId: `act-${act}` },
          });
          description = `The story moved to act ${act}.`;
          extra = { tags: ['world:act_progressed', `act:act-${act}`] };
        } else if (kind === 1) {
          const quest = state.quests[`quest-${questNo}`];
          const next = quest.objectives.find((o) => !o.completed)!;
          world = append({ type: 'ObjectiveCompleted', data: { questId: quest.id, objectiveId: next.id } });
          description = `Objective "${next.name}" of quest "${quest.name}" completed.`;
          extra = {
            tags: ['world:objective_completed', `quest:${quest.id}`, `objective:${next.id}`],
            questId: quest.id,
          };
          if (quest.objectives.every((o) => o.completed || o.id === next.id)) newQuest();
        } else {
          encounter += 1;
          const old = state.locations[to];
          world = append({
            type: 'LocationStateUpdated',
            data: { locationId: to, completedEncounterId: `enc-${encounter}`, fromDangerLevel: old.dangerLevel },
          });
          description = `Encounter enc-${encounter} at ${old.name} completed.`;
          extra = {
            tags: ['world:encounter_completed', `location:${to}`, `encounter:enc-${encounter}`],
            locationId: to,
            encounterId: `enc-${encounter}`,
          };
        }
        triggers += 1;
        remember(world, 'world', 'world', sinceWorld, `${description} ${gist(sinceWorld.slice(-2), 2)}`, extra);
        sinceWorld = [];
      }
    };
    let sceneNo = 0;
    for (; version < spec.events && sceneNo < (spec.scenes ?? Infinity); sceneNo++) playScene(sceneNo, false);
    if (spec.scenes === undefined && state.currentLocationId !== home) playScene(sceneNo, true);
    flushAll();

    const cursorRow = this.insert(CursorRecord);
    const campaignRow = this.insert(CampaignRecord);
    const checkpointRow = this.insert(MemoryCheckpointRecord);
    const stateRow = this.insert(CampaignStateRowRecord);
    this.db.transaction(() => {
      for (const r of stateRows) stateRow(r);
      for (const [key, value] of cursors) {
        const [scope, subjectId] = key.split('\u0000');
        cursorRow({ campaignId: cid, scope, subjectId, value });
      }
      campaignRow({
        id: cid,
        name: state.name,
        version,
        state: '',
        createdAt: state.createdAt,
        timeline: 1,
        messageCount: state.messageCount,
      });
      checkpointRow({ campaignId: cid, processedVersion: processed ? version : 0, memoryVersion, timeline: 1 });
    })();
    const messages = state.messageCount;
    return {
      campaignId: cid,
      events: version,
      messages,
      memories,
      triggers,
      stateBytes: JSON.stringify(state).length,
      stateRows: stateRows.length,
      seconds: (performance.now() - t0) / 1000,
    };
  }
}
