import { input, output } from '../mcp.schemas';
import { ToolTable, spec, writeOf } from '../tool-spec';

export const STATE_TOOLS: ToolTable = {
  assert_fact: spec({
    title: 'Assert a fact',
    description:
      'Assert a world fact (upsert of type+key) for the World State digest; buff/debuff/alert/rumor/timer need a TTL.',
    input: input.assertFact,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, type, key, ...body }] = writeOf(a);
      return c.assertFact(campaignId, type, key, body, w);
    },
  }),
  resolve_fact: spec({
    title: 'Resolve a fact',
    description: 'Resolve a fact: it leaves the digest.',
    input: input.resolveFact,
    output: output.versioned,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, type, key }] = writeOf(a);
      return c.resolveFact(campaignId, type, key, w);
    },
  }),
  list_facts: spec({
    title: 'Facts',
    description: 'Facts by status: active (default), resolved, expired, all.',
    input: input.listFacts,
    output: output.facts,
    kind: 'read',
    run: (c, { campaignId, ...q }) => c.facts(campaignId, q),
  }),
  get_digest: spec({
    title: 'World State digest',
    description: 'The deterministic World State digest and its version (pass it to get_context as digestVersion).',
    input: input.campaign,
    output: output.digest,
    kind: 'read',
    run: (c, a) => c.digest(a.campaignId),
  }),
  store_snapshot: spec({
    title: 'Store a game-tool result',
    description: 'Store the latest result of a game tool for an account (merge: true deep-merges partial results).',
    input: input.storeSnapshot,
    output: output.snapshotStored,
    kind: 'upsert',
    run: (c, { campaignId, account, tool: name, ...body }) => c.putSnapshot(campaignId, account, name, body),
  }),
  get_snapshot: spec({
    title: 'A stored game-tool result',
    description: 'One stored tool result with its tick, staleness and per-field update ticks.',
    input: input.snapshot,
    output: output.snapshot,
    kind: 'read',
    run: (c, a) => c.snapshot(a.campaignId, a.account, a.tool),
  }),
  list_snapshots: spec({
    title: 'Stored game-tool results',
    description: 'The account’s stored tools with their age and staleness.',
    input: input.listSnapshots,
    output: output.snapshots,
    kind: 'read',
    run: (c, { campaignId, account, ...q }) => c.snapshots(campaignId, account, q),
  }),
  report_action: spec({
    title: 'Report a game action',
    description: 'Report a game action (travel, mine, buy, …); answers which stored tools it made stale.',
    input: input.reportAction,
    output: output.stale,
    kind: 'write',
    run: (c, { campaignId, account, ...body }) => c.reportAction(campaignId, account, body),
  }),
  login_account: spec({
    title: 'Log an agent in',
    description: 'Bind an agent to a game account (also registers it; the last login wins).',
    input: input.login,
    output: output.login,
    kind: 'write',
    run: (c, a) => {
      const [w, { campaignId, account, agentId }] = writeOf(a);
      return c.login(campaignId, account, agentId, w);
    },
  }),
  logout_account: spec({
    title: 'Log an account out',
    description: 'Log out: deletes this account’s snapshots and unbinds its agent; other accounts are untouched.',
    input: input.logout,
    output: output.logout,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, account }] = writeOf(a);
      return c.logout(campaignId, account, w);
    },
  }),
  configure_snapshot_tool: spec({
    title: 'Configure a game tool',
    description:
      'How a game tool shows in Current Game State: title, fields, the actions that make it stale, maxAgeTicks.',
    input: input.snapshotTool,
    output: output.snapshotTool,
    kind: 'upsert',
    run: (c, { campaignId, tool: name, ...body }) => c.putSnapshotTool(campaignId, name, body),
  }),
  list_glossary: spec({
    title: 'Glossary',
    description: 'The glossary of coined terms, alphabetical.',
    input: input.campaign,
    output: output.glossary,
    kind: 'read',
    run: (c, a) => c.glossary(a.campaignId),
  }),
  set_glossary_term: spec({
    title: 'Define a glossary term',
    description: 'Set and lock a glossary term’s definition.',
    input: input.glossaryTerm,
    output: output.versioned,
    kind: 'upsert',
    run: (c, a) => {
      const [w, { campaignId, term, definition }] = writeOf(a);
      return c.setGlossaryTerm(campaignId, term, definition, w);
    },
  }),
  hide_glossary_term: spec({
    title: 'Hide a glossary term',
    description: 'Hide a glossary term; the worker never adds it again.',
    input: input.hideTerm,
    output: output.versioned,
    kind: 'destructive',
    run: (c, a) => {
      const [w, { campaignId, term }] = writeOf(a);
      return c.hideGlossaryTerm(campaignId, term, w);
    },
  }),
};
