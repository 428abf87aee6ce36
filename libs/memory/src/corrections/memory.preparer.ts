import { CAMPAIGN_RUNNER, CampaignCommand, CampaignRunner } from '@app/campaign';
import { sql } from '@app/database';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * A memory's status (`active | withheld | withdrawn | deleted`), null when the campaign has no memory of that id.
 * Runs in the caller's transaction; one seek on the `(campaign_id, id)` primary key.
 */
export async function memoryStatusOf(m: EntityManager, campaignId: string, memoryId: string): Promise<string | null> {
  const { rows } = await sql<{ status: string }>(m, 'SELECT status FROM memories WHERE campaign_id = ? AND id = ?', [
    campaignId,
    memoryId,
  ]);
  return rows.length === 0 ? null : rows[0].status;
}

/**
 * Memory's `CommandPreparer` (DESIGN §10 corrections): the game stream cannot see memories, so a correction or a
 * deletion learns its memory's status here, inside the runner's transaction, after the campaign is locked — two
 * racing deletes of one memory cannot both append (the second sees the first's `deleted`).
 */
export async function prepareMemoryCommand(
  m: EntityManager,
  campaignId: string,
  command: CampaignCommand,
): Promise<CampaignCommand> {
  if (command.type !== 'CorrectMemory' && command.type !== 'DeleteMemory') return command;
  const status = await memoryStatusOf(m, campaignId, command.memoryId);
  return { ...command, exists: status !== null && status !== 'deleted' };
}

/** Registers `prepareMemoryCommand` with the campaign's runner at module init. */
@Injectable()
export class MemoryPreparerRegistration implements OnModuleInit {
  constructor(@Inject(CAMPAIGN_RUNNER) private readonly runner: CampaignRunner) {}
  onModuleInit(): void {
    this.runner.prepareWith(prepareMemoryCommand);
  }
}
