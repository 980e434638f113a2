/**
 * The fault suite's files (a process each) share one compiled server (scripts/test-server.mjs):
 * built here once before they start, found by spawnServer through WB_TEST_SERVER_ENTRY.
 */
import { testServerBuild } from '../../../scripts/test-server.mjs';

export default async function setup(): Promise<void> {
  if (process.env.WB_TEST_SERVER_ENTRY) return;
  const { entry } = await testServerBuild();
  process.env.WB_TEST_SERVER_ENTRY = entry;
}
