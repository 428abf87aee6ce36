// Import rules of /work/shared/STYLE.md "Dependency direction", checked by `npm run lint:deps`.
// Violations that existed when the rules came in are listed in .dependency-cruiser-known-violations.json
// (`--ignore-known`), so CI fails on any new one; the issue-19 restructure is meant to empty that file.

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

module.exports = {
  forbidden: [
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
