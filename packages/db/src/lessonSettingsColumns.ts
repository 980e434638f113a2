/**
 * Where a lesson's settings are stored: one rooms column per setting declared in the protocol
 * (LESSON_SETTINGS, lessonSettings.ts), named after it in snake_case (`laserAllowed` is
 * `laser_allowed`). Every statement that reads or writes the settings takes its columns and values
 * from here, so a new setting needs only its column (schema.ts and its migration).
 */
import { sql, type SQL } from 'drizzle-orm';
import { LessonSettings, SETTING_NAMES, type SettingName } from '@wb/protocol';

/** The rooms column that stores the setting. */
export const settingColumn = (name: SettingName): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const column = (name: SettingName, table?: string): SQL =>
  table ? sql`${sql.identifier(table)}.${sql.identifier(settingColumn(name))}` : sql`${sql.identifier(settingColumn(name))}`;

/** Every setting's column (of `table` when given), in declaration order: a SELECT's, or an INSERT's column list. */
export function settingColumns(table?: string): SQL {
  return sql.join(SETTING_NAMES.map((name) => column(name, table)), sql`, `);
}

/** The settings' values in the same order, for an INSERT. */
export function settingValues(settings: LessonSettings): SQL {
  return sql.join(SETTING_NAMES.map((name) => sql`${settings[name]}`), sql`, `);
}

/** `edit_policy = …, cursor_visibility = …`: an UPDATE's SET of every setting. */
export function settingAssignments(settings: LessonSettings): SQL {
  return sql.join(SETTING_NAMES.map((name) => sql`${column(name)} = ${settings[name]}`), sql`, `);
}

/** Every setting still equal to `settings`: the guard of a conditional write. */
export function settingsStillAre(settings: LessonSettings): SQL {
  return sql.join(SETTING_NAMES.map((name) => sql`${column(name)} = ${settings[name]}`), sql` AND `);
}

/** The settings of a row read with `settingColumns` (a value outside its schema is refused, not passed on). */
export function settingsOfRow(row: Readonly<Record<string, unknown>>): LessonSettings {
  return LessonSettings.parse(Object.fromEntries(SETTING_NAMES.map((name) => [name, row[settingColumn(name)]])));
}
