import { routesOf } from '../apps/memory-service/src/bootstrap';
import { startTestApp, TestApp } from './support/test-app';

/** Every route Nest maps must be in /docs/openapi.json, with a summary, a success example and its error responses. */
describe('OpenAPI at /docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('serves the UI and the JSON document', async () => {
    const ui = await t.http('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('Swagger UI');
    const doc = await t.http('GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
  });

  it('documents every mapped route with a summary, a success response and problem+json errors', async () => {
    const doc = (await t.http('GET', '/docs/openapi.json')).body;
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    const apiRoutes = routesOf(t.app).filter((r) => r.url.startsWith('/v1') || r.url.startsWith('/health') || r.url === '/metrics');
    expect(apiRoutes.length).toBeGreaterThan(15);
    const missing = apiRoutes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`).filter((k) => !documented.has(k));
    expect(missing).toEqual([]);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(op.summary).toBeTruthy();
        expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
        if (!path.startsWith('/v1/')) continue;
        const problems = Object.entries<any>(op.responses).filter(([s]) => /^4/.test(s));
        expect(problems.length).toBeGreaterThan(0);
        for (const [, r] of problems) expect(Object.keys(r.content ?? {})).toContain('application/problem+json');
        const success = Object.entries<any>(op.responses).find(([s]) => s.startsWith('2'))![1];
        expect(JSON.stringify(success)).toContain('example');
      }
    }
  });

  it('generates request schemas from the zod DTOs (the same ones that validate)', async () => {
    const doc = (await t.http('GET', '/docs/openapi.json')).body;
    const body = doc.paths['/v1/campaigns/{cid}/locations/{lid}'].put.requestBody.content['application/json'].schema;
    const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
    expect(schema.properties.dangerLevel.enum).toEqual(['SAFE', 'LOW', 'MODERATE', 'HIGH', 'EXTREME', 'CLEARED']);
    expect(schema.required).toEqual(['name']);
    const params = doc.paths['/v1/campaigns/{cid}/context'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['cid', 'agent', 'limit', 'format', 'minVersion', 'waitMs']));
  });
});
