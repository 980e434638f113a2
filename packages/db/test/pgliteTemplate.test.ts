import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder, openDatabase, type Database } from '../src/database.ts';
import { pgliteTemplatePath } from '../src/pgliteTemplate.ts';
import { rows } from '../src/sql.ts';

const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };
const applied = async (db: Database) =>
  (await rows<{ n: number }>(db.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`))[0]!.n;

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

/**
 * Test servers (browser and fault suites) start a dozen fresh embedded databases on disk a run; with
 * WB_PGLITE_TEMPLATE_DISK=on a new directory starts from the template instead of initdb. A
 * deployment never does, and a directory that holds a database is opened as it is.
 */
describe('a new PGlite data directory on disk and the template', () => {
  const saved = { dir: process.env.WB_PGLITE_TEMPLATE_DIR, disk: process.env.WB_PGLITE_TEMPLATE_DISK };
  const scratch = mkdtempSync(join(tmpdir(), 'wb-pglite-disk-template-test-'));
  afterAll(() => {
    for (const [name, value] of [['WB_PGLITE_TEMPLATE_DIR', saved.dir], ['WB_PGLITE_TEMPLATE_DISK', saved.disk]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(scratch, { recursive: true, force: true });
  });
  const openOnDisk = async (name: string) => openDatabase({ kind: 'pglite', dataDir: join(scratch, name) });

  it('is seeded from the template only when WB_PGLITE_TEMPLATE_DISK=on, and then is a whole migrated database', async () => {
    // A template that is not a database: a start that reads it fails, one that ignores it does not.
    const broken = join(scratch, 'broken-template');
    process.env.WB_PGLITE_TEMPLATE_DIR = broken;
    const path = pgliteTemplatePath(migrationsFolder);
    mkdirSync(broken, { recursive: true });
    writeFileSync(path, 'not a tarball of a database');

    delete process.env.WB_PGLITE_TEMPLATE_DISK;
    const unseeded = await openOnDisk('default');
    expect(await applied(unseeded)).toBe(journal.entries.length);
    await unseeded.close();

    process.env.WB_PGLITE_TEMPLATE_DISK = 'on';
    await expect(openOnDisk('seeded-from-garbage')).rejects.toThrow();
    // A directory that already holds a database is opened as it is, template or not.
    const reopened = await openOnDisk('default');
    expect(await applied(reopened)).toBe(journal.entries.length);
    await reopened.close();

    // A real template: a copy of the shared one (the test above proves how one is written; making
    // another from initdb here cost about 9 s of CPU more).
    if (saved.dir === undefined) delete process.env.WB_PGLITE_TEMPLATE_DIR;
    else process.env.WB_PGLITE_TEMPLATE_DIR = saved.dir;
    const shared = pgliteTemplatePath(migrationsFolder);
    if (!existsSync(shared)) await (await openDatabase({ kind: 'pglite' })).close();
    process.env.WB_PGLITE_TEMPLATE_DIR = join(scratch, 'template');
    mkdirSync(join(scratch, 'template'), { recursive: true });
    copyFileSync(shared, pgliteTemplatePath(migrationsFolder));
    const seeded = await openOnDisk('seeded');
    expect(await applied(seeded)).toBe(journal.entries.length);
    const persistence = await rows<{ p: string }>(seeded.db, sql`SELECT relpersistence AS p FROM pg_class WHERE relname = 'presence_leases'`);
    expect(persistence[0]?.p).toBe('u');
    await seeded.db.execute(sql`INSERT INTO rooms (id, code, title) VALUES (gen_random_uuid(), 'DSKXYZ', 'kept on disk')`);
    await seeded.close();
    const again = await openOnDisk('seeded');
    const kept = await rows<{ n: number }>(again.db, sql`SELECT count(*)::int AS n FROM rooms WHERE code = 'DSKXYZ'`);
    expect(kept[0]!.n, 'the seeded directory is a database of its own, kept across starts').toBe(1);
    await again.close();
  }, 300_000);
});
