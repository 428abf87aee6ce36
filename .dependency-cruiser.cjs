// Import rules of the architecture picture (docs/architecture.md, docs/architecture-rules.md), checked by
// `npm run lint:deps`. Violations that existed when a rule came in are listed in
// .dependency-cruiser-known-violations.json (`--ignore-known`), so CI fails on any new one; moving code to where
// the picture puts it empties that file. test/e2e/house/architecture.e2e-spec.ts plants a violation of each rule.

/** Pure domain files: decide/evolve, selection, formatting, query parsing. They import no Nest, TypeORM or I/O. */
const PURE = [
  '^libs/[^/]+/src/domain/',
  '^libs/memory/src/triggers/',
  '^libs/memory/src/memory-events\\.ts$',
  '^libs/memory/src/glossary/(coined|known)-terms\\.ts$',
  '^libs/search/src/query/',
  '^libs/context/src/(format|text-layout|recent-window|context\\.renderer|context\\.types)\\.ts$',
  '^libs/state/src/(facts|players)/',
  '^libs/state/src/snapshots/(deep-merge|recency|staleness|game-state\\.renderer)\\.ts$',
  '^libs/summarizer/src/(key-sentences|transcript-block|transcript-chunks|summary-prompts)\\.ts$',
];

/** Node built-ins that do I/O (crypto hashing and events stay allowed: they are computation, not I/O). */
const NODE_IO =
  '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|readline|os|process|stream)$';

/**
 * The layers of docs/architecture.md: the libs each lib's production code may import (besides itself). A lib
 * never imports one above it; a lib not listed here (a new one) must be added before others may import it.
 */
const LAYERS = {
  common: [],
  client: [],
  database: ['common'],
  'event-store': ['common', 'database'],
  summarizer: ['common', 'database'],
  search: ['common', 'database', 'event-store'],
  campaign: ['common', 'database', 'event-store', 'search'],
  state: ['common', 'database', 'event-store', 'search', 'campaign'],
  memory: ['common', 'database', 'event-store', 'search', 'summarizer', 'campaign'],
  replica: ['common', 'database', 'event-store', 'search', 'summarizer', 'campaign', 'memory'],
  broadcasts: ['common', 'database', 'event-store', 'search'],
  recall: ['common', 'database', 'event-store', 'search', 'broadcasts', 'campaign', 'memory'],
  context: ['common', 'database', 'event-store', 'search', 'summarizer', 'campaign', 'state', 'memory', 'recall'],
};

/** Specs and shared test support (contract suites, fakes) may reach across layers to set a test up. */
const TEST_CODE = ['\\.spec\\.ts$', '\\.contract\\.ts$', '/testing/'];

const layerRules = Object.entries(LAYERS).map(([lib, allowed]) => ({
  name: `lib-layer-${lib}`,
  severity: 'error',
  comment:
    `${lib} sits below the libs it does not list: it imports ${allowed.join(', ') || 'no other lib'} only ` +
    '(docs/architecture.md, "Layers").',
  from: { path: `^libs/${lib}/`, pathNot: TEST_CODE },
  to: { path: '^libs/', pathNot: `^libs/(${[lib, ...allowed].join('|')})/` },
}));

/** Adapter files: what implements a port (TypeORM, in-memory, FTS5, PostgreSQL, model SDKs, the lease). */
const ADAPTERS = [
  '^libs/[^/]+/src/(typeorm|in-memory|fts5|postgres)/',
  '^libs/summarizer/src/(anthropic|openai|local|prompt|chunking)\\.summarizer\\.ts$',
  '^libs/replica/src/postgres-lease\\.ownership\\.ts$',
];

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'port-not-to-adapter',
      severity: 'error',
      comment: 'Adapters depend on ports, never the other way round: a port names no adapter, driver or model SDK.',
      from: { path: '\\.port\\.ts$' },
      to: { path: [...ADAPTERS, 'node_modules/(pg|pg-[^/]+|better-sqlite3|@anthropic-ai|openai)/'] },
    },
    {
      name: 'lib-no-http',
      severity: 'error',
      comment: "HTTP is the app's: libs throw domain errors with a code and never import the web framework.",
      from: { path: '^libs/' },
      to: { path: 'node_modules/(fastify|@fastify|@nestjs/platform-fastify|@nestjs/swagger|light-my-request)/' },
    },
    {
      name: 'client-standalone',
      severity: 'error',
      comment: 'The typed client is its own package with no runtime dependency but fetch: it imports only itself.',
      from: { path: '^libs/client/', pathNot: TEST_CODE },
      to: { pathNot: '^libs/client/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order and ownership unclear.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-not-to-app',
      severity: 'error',
      comment: 'apps → libs, never back.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-not-to-other-app',
      severity: 'error',
      comment: 'An app composes libs; what two apps share belongs in a lib.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'lib-through-index',
      severity: 'error',
      comment: 'An app or another lib reaches a lib only through its index.ts (import it as @app/<lib>).',
      from: { path: '^(apps|libs)/([^/]+)/' },
      to: { path: '^libs/', pathNot: ['^$1/$2/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'no-other-lib-entity',
      severity: 'error',
      comment:
        "Each table has one owner: no lib imports another lib's *.entity.ts. (Entities re-exported by a barrel " +
        'are caught by ESLint no-restricted-imports in eslint.config.mjs: dependency-cruiser sees files, not names.)',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/.+\\.entity\\.ts$', pathNot: '^libs/$1/' },
    },
    {
      name: 'pure-domain-no-framework',
      severity: 'error',
      comment:
        'Pure domain files (decide, evolve, selection, formatting, query parsing) import no Nest, TypeORM or database driver.',
      from: { path: PURE, pathNot: '\\.spec\\.ts$' },
      to: { path: 'node_modules/(@nestjs|typeorm|pg|pg-[^/]+|better-sqlite3|@anthropic-ai|openai)/' },
    },
    {
      name: 'pure-domain-no-io',
      severity: 'error',
      comment: 'Pure domain files do no I/O: no node file, network or process modules.',
      from: { path: PURE, pathNot: '\\.spec\\.ts$' },
      to: { dependencyTypes: ['core'], path: NODE_IO },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // No includeOnly: it would hide node_modules and built-ins from the pure-domain rules.
    // its schema is generated at test time
    exclude: {
      path: '(^|/)dist/|^(coverage|test-artifacts|bench/results)/|^test/openapi-client/|^test/client-packages/',
    },
    doNotFollow: { path: 'node_modules' },
    // Keep paths under ./node_modules even when it is a symlink (worktrees share one).
    preserveSymlinks: true,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
