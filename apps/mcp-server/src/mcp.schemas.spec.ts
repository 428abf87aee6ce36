import { DANGER_LEVELS, MESSAGE_ROLES, VISIBILITIES } from '@app/campaign';
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
});
