/**
 * A zip of files, written by fflate (a maintained zip library): PNGs are compressed already, so
 * they are stored (level 0), not deflated again. Names are written in UTF-8, as a student's name
 * may be "Zoë" or "李雷".
 */
import { zipSync, type Zippable } from 'fflate';

export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

/** The archive of `entries`, in their order (names must be distinct: see `uniqueFileNames`). */
export function zipArchive(entries: readonly ZipEntry[], at = new Date()): Uint8Array {
  const files: Zippable = {};
  for (const entry of entries) files[entry.name] = [entry.data, { level: 0, mtime: at }];
  return zipSync(files);
}

/**
 * A file name for each of `names` (a student's name, say): characters no file system takes
 * replaced, and a repeated name numbered ("Ana.png", "Ana (2).png"), so no entry hides another.
 */
export function uniqueFileNames(names: readonly string[], extension: string): string[] {
  const seen = new Map<string, number>();
  return names.map((raw) => {
    // eslint-disable-next-line no-control-regex
    const base = raw.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '').slice(0, 80) || 'board';
    const key = base.toLowerCase();
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return `${count === 1 ? base : `${base} (${count})`}.${extension}`;
  });
}
