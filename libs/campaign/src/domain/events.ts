import { CampaignSettings, DangerLevel, Message } from './state';
import { WorldStateEvent } from './world-state';

/** Game-stream events (DESIGN §2); the memory stream's events live in @app/memory. */
export type GameEvent =
  | { type: 'CampaignCreated'; data: { campaignId: string; name: string; settings: CampaignSettings } }
  | { type: 'CampaignSettingsChanged'; data: Partial<CampaignSettings> }
  | { type: 'LocationRegistered'; data: { locationId: string; name: string; dangerLevel: DangerLevel | null } }
  | { type: 'LocationRenamed'; data: { locationId: string; name: string; dangerLevel: DangerLevel | null } }
  | { type: 'NpcRegistered'; data: { npcId: string; name: string; aliases: string[]; locationId: string | null } }
  | {
      type: 'NpcUpdated';
      data: {
        npcId: string;
        name: string;
        aliases: string[];
        locationId: string | null;
        fromLocationId: string | null;
      };
    }
  | { type: 'QuestRegistered'; data: { questId: string; name: string; objectives: { id: string; name: string }[] } }
  | { type: 'MessageRecorded'; data: Message }
  | { type: 'LocationChanged'; data: LocationChangedData }
  | { type: 'ObjectiveCompleted'; data: { questId: string; objectiveId: string } }
  | { type: 'QuestCompleted'; data: { questId: string } }
  | { type: 'ActProgressed'; data: { fromActId: string | null; toActId: string } }
  | {
      type: 'LocationStateUpdated';
      data: {
        locationId: string;
        dangerLevel?: DangerLevel;
        completedEncounterId?: string;
        fromDangerLevel: DangerLevel | null;
      };
    }
  | { type: 'RoundEnded'; data: { round: number } }
  /** §8: the campaign's story time from here on (a message or command gave a new one). */
  | { type: 'StoryTimeSet'; data: { storyTime: string } }
  | { type: 'BibleUpdated'; data: { text: string; dmOnly: string } }
  | { type: 'GlossaryTermSet'; data: { term: string; definition: string } }
  | { type: 'GlossaryTermHidden'; data: { term: string } }
  /** §10: the fork's own first event, at the parent's version V + 1 (appended by the fork, not by `decide`). */
  | { type: 'CampaignForked'; data: { parentId: string; parentVersion: number; name: string } }
  /** §10: appended at `toVersion + 1` by a rewind; the timeline itself lives in `campaign_timelines`. */
  | { type: 'CampaignRewound'; data: { fromVersion: number; toVersion: number; keptAs: string | null } }
  | { type: 'MessagesRetracted'; data: { indexes: number[]; reason: string | null } }
  | { type: 'MemoryCorrected'; data: { memoryId: string; summary: string } }
  | { type: 'MemoryDeleted'; data: { memoryId: string } }
  | WorldStateEvent;

/**
 * The party (or, §8 split parties, the named `players`) left `fromLocationId`. `sceneEnded: false` = players remain
 * there, so no location memory yet. `playerLocations`: players whose own location this move set (null = with the
 * party again).
 */
export interface LocationChangedData {
  fromLocationId: string | null;
  toLocationId: string;
  npcsPresent: string[];
  players?: string[];
  sceneEnded?: boolean;
  playerLocations?: Record<string, string | null>;
}

export type GameEventType = GameEvent['type'];
export type EventOf<T extends GameEventType> = Extract<GameEvent, { type: T }>;
