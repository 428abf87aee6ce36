import { routesOf } from '../../../apps/memory-service/src/bootstrap';
import { formatHistogram, runFuzz } from '../../support/fuzz/fuzzer';
import { ROUTES } from '../../support/fuzz/route-table';
import { startTestApp, TestApp } from '../../support/test-app';

const TOKEN = 'fuzz-token-0123456789abcdef';
const VIEWER_TOKEN = 'fuzz-viewer-token-0123456789abcdef';

/** ~1,000 property-based hostile requests over every route (npm run fuzz runs 10,000 against the built service). */
describe('hostile input fuzzing (every route)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOREKEEPER_API_KEYS: `${TOKEN}, ${VIEWER_TOKEN}=*@player:aria` } });
  });
  afterAll(async () => t.close());

  it('has a route-table entry for every route the app maps, and none for a route it does not', () => {
    // The Swagger UI's static assets are files, not API; the OpenAPI documents themselves are fuzzed.
    const docsAsset = (url: string) => url.startsWith('/docs') && url !== '/docs/openapi.json' && url !== '/docs-yaml';
    const mapped = routesOf(t.app)
      .filter((r) => !docsAsset(r.url))
      .map((r) => `${r.method} ${r.url}`);
    const table = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(mapped.length).toBeGreaterThan(40);
    expect(mapped.filter((r) => !table.includes(r))).toEqual([]);
    expect(table.filter((r) => !mapped.includes(r))).toEqual([]);
  });

  it('never answers 5xx, always problem+json with a code for 4xx, and a rejected request never moves the campaign version', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261123);
    const report = await runFuzz({
      baseUrl: t.url,
      cases: Number(process.env.FUZZ_CASES ?? 1000),
      seed,
      token: TOKEN,
      viewerToken: VIEWER_TOKEN,
    });
    if (process.env.FUZZ_VERBOSE) console.log(formatHistogram(report.histogram), report.byMutation);
    if (report.failures.length) {
      console.error(
        `fuzz seed ${seed}: ${report.failures.length} failures, first ones:\n${JSON.stringify(report.failures.slice(0, 5), null, 2)}\nstatuses:\n${formatHistogram(report.histogram)}`,
      );
    }
    expect(report.failures).toEqual([]);
    expect(report.cases).toBe(Number(process.env.FUZZ_CASES ?? 1000));
    // The cases really reach both sides: accepted writes and a spread of rejections.
    expect(report.histogram['200'] ?? 0).toBeGreaterThan(0);
    expect(report.histogram['400']).toBeGreaterThan(100);
    expect(report.histogram['404']).toBeGreaterThan(0);
  }, 240_000);
});
