import Fastify from 'fastify';
import { openSqlite } from '../support/sqlite';

/**
 * The floor for the ingest benchmark: raw Fastify + better-sqlite3 doing the same insert as the
 * service's messages projection (same columns, keys and indexes, WAL, synchronous=NORMAL), and
 * nothing else — no event log, no validation schema, no framework, no worker.
 */
const db = openSqlite(process.env.DB_PATH ?? ':memory:');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
db.exec(`CREATE TABLE IF NOT EXISTS messages (
  campaign_id varchar(128) NOT NULL, idx integer NOT NULL, role varchar(16) NOT NULL, speaker varchar(200),
  content text NOT NULL, location_id varchar(128), npc_ids text NOT NULL, at varchar(40) NOT NULL,
  round integer NOT NULL, visibility varchar(16) NOT NULL, audience text NOT NULL, tool_calls text NOT NULL,
  tool_call_id varchar(128), reasoning text, version integer NOT NULL, PRIMARY KEY (campaign_id, idx))`);
db.exec('CREATE INDEX IF NOT EXISTS ix_messages_location ON messages (campaign_id, location_id, idx)');
db.exec('CREATE INDEX IF NOT EXISTS ix_messages_round ON messages (campaign_id, round, idx)');

const insert = db.prepare(
  `INSERT INTO messages (campaign_id, idx, role, speaker, content, location_id, npc_ids, at, round, visibility, audience, tool_calls, tool_call_id, reasoning, version)
   VALUES (@campaign_id, @idx, @role, @speaker, @content, @location_id, @npc_ids, @at, @round, @visibility, @audience, @tool_calls, @tool_call_id, @reasoning, @version)`,
);
const lastIndex = db.prepare('SELECT MAX(idx) AS idx FROM messages WHERE campaign_id = ?');
const next = new Map<string, number>();

interface MessageBody {
  role: string;
  speaker?: string;
  content: string;
  locationId?: string;
  npcIds?: string[];
  at?: string;
}

const record = db.transaction((campaignId: string, messages: MessageBody[]) => {
  let idx = next.get(campaignId) ?? ((lastIndex.get(campaignId) as { idx: number | null }).idx ?? -1) + 1;
  const now = new Date().toISOString();
  const indexes: number[] = [];
  for (const m of messages) {
    insert.run({
      campaign_id: campaignId,
      idx,
      role: m.role,
      speaker: m.speaker ?? null,
      content: m.content,
      location_id: m.locationId ?? null,
      npc_ids: JSON.stringify(m.npcIds ?? []),
      at: m.at ?? now,
      round: 1,
      visibility: 'public',
      audience: '[]',
      tool_calls: '[]',
      tool_call_id: null,
      reasoning: null,
      version: idx + 1,
    });
    indexes.push(idx++);
  }
  next.set(campaignId, idx);
  return indexes;
});

const app = Fastify({ bodyLimit: 1024 * 1024 });
app.get('/health', async () => ({ status: 'ok' }));
app.post<{ Params: { cid: string }; Body: { messages?: MessageBody[] } }>(
  '/v1/campaigns/:cid/messages',
  async (req, reply) => {
    const messages = req.body?.messages;
    if (!Array.isArray(messages) || messages.length === 0) return reply.code(400).send({ code: 'INVALID_BODY' });
    const indexes = record(req.params.cid, messages);
    return reply.code(201).send({ indexes, version: indexes[indexes.length - 1] + 1 });
  },
);

app.listen({ port: Number(process.env.PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' }).catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
process.on('SIGTERM', () => {
  void app.close().then(() => {
    db.close();
    process.exit(0);
  });
});
