import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { glossaryKey } from '../glossary-key';
import { CampaignState } from '../state';

export function setGlossaryTerm(state: CampaignState, command: CommandOf<'SetGlossaryTerm'>): GameEvent[] {
  const prev = state.glossary?.[glossaryKey(command.term)];
  if (prev && !prev.hidden && prev.definition === command.definition) return [];
  return [{ type: 'GlossaryTermSet', data: { term: command.term, definition: command.definition } }];
}
