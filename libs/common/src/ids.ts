import { randomUUID } from 'node:crypto';

/** Ids of campaigns, locations, NPCs, quests, accounts, tools… (DESIGN §3). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const isValidId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);
export const newId = (): string => randomUUID();
