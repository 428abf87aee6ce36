import {
  ALL_MESSAGES,
  buildLeakCampaign,
  EchoSummarizer,
  FACT,
  markersIn,
  PUBLIC_MESSAGES,
  SCRIPT,
  sorted,
  union,
} from '../../support/leak-scenario';
import { startTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(120_000);

const FULL = 'full-token-0123456789abcdef';
const ALL_QUERY = encodeURIComponent([...ALL_MESSAGES].join(' '));
const PUBLIC_ROUND_2 = new Set(SCRIPT.filter((m) => m.visibility === 'public' && m.round === 2).map((m) => m.marker));

/**
 * The leak suite's rows for contexts without a viewer (DESIGN §8 "the public view"): only public messages, memories,
 * recall and Previously built from public messages only, and glossary terms used in public.
 */
describe.each([
  ['without perRoleMemory', 'leak-b', false],
  ['with perRoleMemory', 'leak-c', true],
])('leak suite: the public view (%s)', (_label, cid, perRoleMemory) => {
  let t: TestApp;
  const seen = async (path: string) => {
    const res = await t.http('GET', `/v1/campaigns/${cid}${path}`, undefined, { authorization: `Bearer ${FULL}` });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status} ${res.text.slice(0, 300)}`);
    return markersIn(res.text);
  };
  beforeAll(async () => {
    t = await startTestApp({
      summarizer: new EchoSummarizer(),
      env: { LOREKEEPER_API_KEYS: FULL, HOT_ROUNDS: '1', SUMMARY_INTERVAL_ROUNDS: '1' },
    });
    await buildLeakCampaign(t, cid, { perRoleMemory, headers: { authorization: `Bearer ${FULL}` } });
  });
  afterAll(async () => t.close());

  const publicOnly = (got: Set<string>) => sorted([...got].filter((m) => !PUBLIC_MESSAGES.has(m) && m !== FACT));

  it('the default narrative context shows public text only', async () => {
    expect(publicOnly(await seen('/context'))).toEqual([]);
    expect(publicOnly(await seen('/context?format=text&limit=100'))).toEqual([]);
  });

  it('the tool-agent context shows the public messages of the hot round and the world state', async () => {
    expect(sorted(await seen('/context?agent=agent&budget=200000&format=text'))).toEqual(
      sorted(union(PUBLIC_ROUND_2, [FACT])),
    );
  });

  it('every section without a viewer (Previously, recall, glossary, memories, recent) shows exactly the public messages', async () => {
    const include = 'glossary,previously,location,npc,world,recall,recent';
    const got = await seen(`/context?include=${include}&budget=200000&limit=100&format=text&query=${ALL_QUERY}`);
    expect(publicOnly(got)).toEqual([]);
    if (!perRoleMemory) expect(sorted(got)).toEqual(sorted(PUBLIC_MESSAGES)); // the public Previously holds round 1
  });
});
