import { ClockSetting, DangerLevel, MessageRole, ToolCall, Visibility } from './state';
import { WorldStateCommand } from './world-state';

export interface MessageInput {
  role: MessageRole;
  speaker?: string | null;
  content: string;
  locationId?: string | null;
  npcIds?: string[];
  at?: string;
  visibility?: Visibility;
  audience?: string[];
  toolCalls?: ToolCall[];
  toolCallId?: string;
  reasoning?: string;
  /** §8 story time: free text, one line (1–80 characters). */
  storyTime?: string;
}

/** §8: a story command may say what time it is in the story from then on. */
export interface StoryTimed {
  storyTime?: string;
}

/** Every command the game stream accepts, as plain data for the pure `decide`. */
export type CampaignCommand =
  | { type: 'CreateCampaign'; name: string; perRoleMemory?: boolean; clock?: ClockSetting }
  | { type: 'ChangeSettings'; perRoleMemory?: boolean; clock?: ClockSetting }
  | { type: 'PutLocation'; locationId: string; name: string; dangerLevel?: DangerLevel }
  | { type: 'PutNpc'; npcId: string; name: string; aliases?: string[]; locationId?: string | null }
  | { type: 'PutQuest'; questId: string; name: string; objectives: { id: string; name: string }[] }
  | { type: 'RecordMessages'; messages: MessageInput[]; now: string; knownToolCallIds?: ReadonlySet<string> }
  | ({ type: 'ChangeLocation'; toLocationId: string; players?: string[] } & StoryTimed)
  | ({ type: 'CompleteObjective'; questId: string; objectiveId: string } & StoryTimed)
  | ({ type: 'CompleteQuest'; questId: string } & StoryTimed)
  | ({ type: 'ProgressAct'; actId: string } & StoryTimed)
  | ({
      type: 'UpdateLocationState';
      locationId: string;
      dangerLevel?: DangerLevel;
      completeEncounter?: string;
    } & StoryTimed)
  | ({ type: 'EndRound' } & StoryTimed)
  | { type: 'PutBible'; text: string; dmOnly?: string }
  | { type: 'SetGlossaryTerm'; term: string; definition: string }
  /** `coined`: the worker's glossary already holds the term (looked up by the handler). */
  | { type: 'HideGlossaryTerm'; term: string; coined: boolean }
  /** §10 swipe/retcon. `retracted`: the indexes already retracted (read by the runner in its transaction). */
  | { type: 'RetractMessages'; indexes: number[]; reason?: string | null; retracted?: ReadonlySet<number> }
  /** §10 GM corrections; memory's preparer checks the memory exists (`exists`) in the runner's transaction. */
  | { type: 'CorrectMemory'; memoryId: string; summary: string; exists?: boolean }
  | { type: 'DeleteMemory'; memoryId: string; exists?: boolean }
  | WorldStateCommand;

/** The command of one type, e.g. `CommandOf<'PutLocation'>`. */
export type CommandOf<T extends CampaignCommand['type']> = Extract<CampaignCommand, { type: T }>;
