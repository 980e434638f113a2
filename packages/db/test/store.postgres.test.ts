import { describe, it } from 'vitest';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';
import { storeContract } from './storeContract.ts';

const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`store contract (real Postgres): ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  const scratch = new ScratchDatabase(target.url);
  storeContract({
    label: 'real Postgres',
    hasPeer: true,
    open: async () => {
      await scratch.create({ migrated: true });
      const database = await scratch.open();
      // A second pool: the races below need two real connections, not two turns of one.
      const peer = await scratch.open();
      return { database, peer };
    },
    close: () => scratch.drop(),
  });
}
