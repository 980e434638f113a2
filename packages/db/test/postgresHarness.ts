import { postgresUnavailableReason } from '../src/testing.ts';

export { ScratchDatabase } from '../src/testing.ts';

/**
 * Where the real-Postgres tests connect: TEST_DATABASE_URL, or why they skip (on a laptop without
 * it). Under CI a missing URL throws: a CI run that silently skipped the real-database half of the
 * contract would prove nothing.
 */
export function testDatabaseUrl(): { url: string } | { skip: string } {
  const reason = postgresUnavailableReason();
  return reason === null ? { url: process.env.TEST_DATABASE_URL! } : { skip: `skipped: ${reason}` };
}
