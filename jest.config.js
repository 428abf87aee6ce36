// Nest 12 packages are ESM-only; Jest (on Node 20) cannot require(esm), so those few packages are
// transpiled to CommonJS by swc like our own sources.
const { ESM_PACKAGES: esmPackages } = require('./scripts/esm-packages');
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = {
  '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
  '^@modelcontextprotocol/sdk/(.*)$': '<rootDir>/node_modules/@modelcontextprotocol/sdk/dist/cjs/$1',
};
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform: { '^.+\\.(t|j|mj)s$': swc },
  // The last node_modules segment decides, so nested copies (e.g. @fastify/static's own glob) are transpiled too.
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)(?!.*/node_modules/)`],
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
    },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], testTimeout: 60000 },
    // PostgreSQL-only specs (replicas, leases); they skip themselves without TEST_DATABASE_URL (npm run test:pg).
    { ...common, displayName: 'pg', testMatch: ['<rootDir>/test/pg/**/*.pg-spec.ts'] },
  ],
  // Jest reads testTimeout only here, not per project (the projects' own values are ignored).
  testTimeout: 60000,
};
