import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder, openDatabase, type Database } from '../src/database.ts';
import { pgliteTemplatePath } from '../src/pgliteTemplate.ts';
import { rows } from '../src/sql.ts';

/** The in-memory template must be a faithful, empty, migrated database, never shared state. */
describe('in-memory PGlite from the migrated template', () => {
  const opened: Database[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
  });
  const open = async () => {
    const db = await openDatabase({ kind: 'pglite' });
    opened.push(db);
    return db;
  };
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };
  const applied = async (db: Database) =>
    (await rows<{ n: number }>(db.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`))[0]!.n;

  it('a database started from the template has every migration applied and no rows of another', async () => {
    // A template directory of this test's own: removing the shared template would send every other
    // test process starting an engine meanwhile (unit, fault and browser lanes) back to initdb.
    const dir = mkdtempSync(join(tmpdir(), 'wb-pglite-template-test-'));
    const before = process.env.WB_PGLITE_TEMPLATE_DIR;
    process.env.WB_PGLITE_TEMPLATE_DIR = dir;
    try {
      await fromAnEmptyTemplateDirectory();
    } finally {
      if (before === undefined) delete process.env.WB_PGLITE_TEMPLATE_DIR;
      else process.env.WB_PGLITE_TEMPLATE_DIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function fromAnEmptyTemplateDirectory() {
    const path = pgliteTemplatePath(migrationsFolder);
    expect(existsSync(path), 'no template in the fresh directory').toBe(false);
    const first = await open();
    expect(existsSync(path), 'the first in-memory start writes the template').toBe(true);
    await first.db.execute(sql`INSERT INTO rooms (id, code, title) VALUES (gen_random_uuid(), 'TPLXYZ', 'only in the first')`);

    const second = await open();
    expect(await applied(second)).toBe(journal.entries.length);
    expect(await applied(first)).toBe(journal.entries.length);
    const leaked = await rows<{ n: number }>(second.db, sql`SELECT count(*)::int AS n FROM rooms`);
    expect(leaked[0]!.n, 'rows written after the template was taken are not in it').toBe(0);
    // I6's storage rule survives the template: presence leases stay UNLOGGED.
    const persistence = await rows<{ p: string }>(second.db, sql`SELECT relpersistence AS p FROM pg_class WHERE relname = 'presence_leases'`);
    expect(persistence[0]?.p).toBe('u');
  }
});
