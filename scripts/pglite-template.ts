/**
 * Makes sure the migrated PGlite template (packages/db/src/pgliteTemplate.ts) exists, by opening
 * and closing one in-memory database: `pnpm test` runs it before its lanes, so the first unit
 * file, the browser suite's server, the drill's and the fault suite's all start from the template
 * instead of several of them running initdb at once on a loaded machine (one such start took over
 * 120 s at the lowest priority). Nothing happens when the template is already there.
 */
import { existsSync } from 'node:fs';
import { migrationsFolder, openDatabase } from '../packages/db/src/database.ts';
import { pgliteTemplatePath } from '../packages/db/src/pgliteTemplate.ts';

const path = pgliteTemplatePath(migrationsFolder);
if (existsSync(path)) {
  console.log(`pglite template: ${path} (already there)`);
} else {
  const started = Date.now();
  const database = await openDatabase({ kind: 'pglite' });
  await database.close();
  console.log(`pglite template: ${existsSync(path) ? 'written' : 'NOT written'} in ${Date.now() - started} ms (${path})`);
}
