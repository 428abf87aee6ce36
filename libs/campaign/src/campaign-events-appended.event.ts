/** Published on the EventBus after a commit; only wakes the worker (the checkpoint is the truth). */
export class CampaignEventsAppended {
  constructor(
    readonly campaignId: string,
    readonly version: number,
  ) {}
}
