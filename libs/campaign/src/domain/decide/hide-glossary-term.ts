import { notFound } from '@app/common';
import { CommandOf } from '../commands';
import { GameEvent } from '../events';
import { glossaryKey } from '../glossary-key';
import { CampaignState } from '../state';

export function hideGlossaryTerm(state: CampaignState, command: CommandOf<'HideGlossaryTerm'>): GameEvent[] {
  const prev = state.glossary?.[glossaryKey(command.term)];
  if (!prev && !command.coined) throw notFound('GLOSSARY_TERM_NOT_FOUND', `the glossary has no term "${command.term}"`);
  if (prev?.hidden) return [];
  return [{ type: 'GlossaryTermHidden', data: { term: command.term } }];
}
