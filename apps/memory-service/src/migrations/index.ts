import { InitialSchema1763900000000 } from './1763900000000-initial-schema';
import { LayeredContext1763900800000 } from './1763900800000-layered-context';
import { SearchIndex1763990000000 } from './1763990000000-search-index';
import { ReplicaLeases1764000000000 } from './1764000000000-replica-leases';
import { GameState1764000800000 } from './1764000800000-game-state';
import { BroadcastScope1764200000000 } from './1764200000000-broadcast-scope';
import { UsageLedger1764300000000 } from './1764300000000-usage-ledger';
import { TableOwners1764400000000 } from './1764400000000-table-owners';
import { Timelines1764500000000 } from './1764500000000-timelines';
import { MemoriesByVersion1764600000000 } from './1764600000000-memories-by-version';
import { StoryTime1764700000000 } from './1764700000000-story-time';
import { BroadcastVisibility1764728000000 } from './1764728000000-broadcast-visibility';
import { LeanMessageWrites1764800000000 } from './1764800000000-lean-message-writes';

/** Every migration, oldest first; run at boot. */
export const MIGRATIONS = [
  InitialSchema1763900000000,
  LayeredContext1763900800000,
  SearchIndex1763990000000,
  ReplicaLeases1764000000000,
  GameState1764000800000,
  BroadcastScope1764200000000,
  UsageLedger1764300000000,
  TableOwners1764400000000,
  Timelines1764500000000,
  MemoriesByVersion1764600000000,
  StoryTime1764700000000,
  BroadcastVisibility1764728000000,
  LeanMessageWrites1764800000000,
];
