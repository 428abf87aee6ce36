import { RunCampaignHandler } from './run-campaign.command';

export * from './run-campaign.command';

/**
 * The campaign's command handlers: one generic runner for every game-stream command (a command that needs
 * more than load → decide → append, like memory's HideGlossaryTerm, brings its own handler).
 */
export const CommandHandlers = [RunCampaignHandler];
