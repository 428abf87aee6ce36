import { testDatabaseUrl } from '../support/test-postgres';

/** PostgreSQL specs run only with TEST_DATABASE_URL (npm run test:pg starts a server for them). */
export const describePg: jest.Describe = testDatabaseUrl() ? describe : describe.skip;
