import { normalizePath } from './route-access';

describe('normalizePath (the path the router sees)', () => {
  it.each([
    ['/v1/campaigns/c/events', '/v1/campaigns/c/events'],
    ['/v1/campaigns/c/./events', '/v1/campaigns/c/events'],
    ['/v1/campaigns/c/x/../events', '/v1/campaigns/c/events'],
    ['/v1/campaigns/c/x/%2e%2E/events', '/v1/campaigns/c/events'],
    ['/v1/campaigns/c/%2E/events?after=1', '/v1/campaigns/c/events?after=1'],
    ['/v1/campaigns/c/events;jsessionid=1', '/v1/campaigns/c/events'],
    ['/v1/campaigns;x/c;y=2/events;z?q=a;b', '/v1/campaigns/c/events?q=a;b'],
    ['/../../health', '/health'],
    ['/v1/campaigns/c/.', '/v1/campaigns/c/'],
    ['/v1/campaigns/a.b/glossary/Void%3BChisel', '/v1/campaigns/a.b/glossary/Void%3BChisel'],
    ['/docs/swagger-ui.css', '/docs/swagger-ui.css'],
  ])('%s → %s', (given, routed) => {
    expect(normalizePath(given)).toBe(routed);
  });
});
