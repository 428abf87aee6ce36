import { DANGER_LEVELS, MEMORY_SUMMARY_MAX_CHARS, MESSAGE_ROLES, VISIBILITIES } from '@app/campaign';
import { RETRACT_MAX_INDEXES, RETRACT_REASON_MAX_CHARS } from '@app/campaign';
import { AGENTS, SECTION_ORDER } from '@app/context';
import { ID_PATTERN as SERVICE_ID_PATTERN } from '@app/common';
import { FACT_STATUSES } from '@app/state';
import { messagesBody } from '../../memory-service/src/http/dto/campaign.dto';
import * as mcp from './mcp.schemas';

// The MCP server loads none of the service's code (so it starts fast); its copies of the enums are checked here.
describe('MCP input schemas follow the service', () => {
  it('uses the service’s roles, visibilities, danger levels, agents and fact statuses', () => {
    expect(mcp.MESSAGE_ROLES).toEqual(MESSAGE_ROLES);
    expect(mcp.VISIBILITIES).toEqual(VISIBILITIES);
    expect(mcp.DANGER_LEVELS).toEqual(DANGER_LEVELS);
    expect(mcp.AGENTS).toEqual(AGENTS);
    expect(mcp.FACT_STATUSES).toEqual(FACT_STATUSES);
    expect(mcp.ID_PATTERN.source).toBe(SERVICE_ID_PATTERN.source);
  });

  it('names every section key the service knows in the include description', () => {
    const described = mcp.input.context.include.description ?? '';
    for (const key of SECTION_ORDER) expect(described).toContain(key);
  });

  it('carries every message field the service accepts', () => {
    // Dropping a field here once turned every whisper sent through MCP into a public message.
    const service = Object.keys(messagesBody.shape.messages.element.shape).sort();
    expect(Object.keys(mcp.messageInput.shape).sort()).toEqual(service);
    const fields = ['visibility', 'audience', 'at', 'toolCalls', 'toolCallId', 'reasoning'];
    expect(service).toEqual(expect.arrayContaining(fields));
  });

  it('takes the timeline tools’ limits from the service (retraction, correction)', () => {
    const indexes = mcp.input.retractMessages.indexes;
    expect(indexes.safeParse(Array.from({ length: RETRACT_MAX_INDEXES }, (_, i) => i)).success).toBe(true);
    expect(indexes.safeParse(Array.from({ length: RETRACT_MAX_INDEXES + 1 }, (_, i) => i)).success).toBe(false);
    expect(mcp.input.retractMessages.reason.safeParse('x'.repeat(RETRACT_REASON_MAX_CHARS + 1)).success).toBe(false);
    const summary = mcp.input.correctMemory.summary;
    expect(summary.safeParse('x'.repeat(MEMORY_SUMMARY_MAX_CHARS)).success).toBe(true);
    expect(summary.safeParse('x'.repeat(MEMORY_SUMMARY_MAX_CHARS + 1)).success).toBe(false);
    expect(mcp.writeOptions.ifMatch.safeParse('2:17').success).toBe(true);
    expect(mcp.writeOptions.ifMatch.safeParse('2:').success).toBe(false);
  });
});
