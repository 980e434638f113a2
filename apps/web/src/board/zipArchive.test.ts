/**
 * The class's zip: every file once, in order, whole, under its UTF-8 name (read back with fflate's
 * own reader, and its CRC checked there), and file names that never collide or escape the
 * archive's folder.
 */
import { unzipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { uniqueFileNames, zipArchive } from './zipArchive.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('zip archive', () => {
  test('the archive holds every file whole, in order, under its UTF-8 name, stored not deflated', () => {
    const files = [
      { name: 'Ana.png', data: bytes('first') },
      { name: 'Zoë.png', data: bytes('second, longer') },
    ];
    const zip = zipArchive(files, new Date(2031, 2, 1, 8, 30, 10));
    const read = unzipSync(zip);
    expect(Object.keys(read)).toEqual(['Ana.png', 'Zoë.png']);
    expect(new TextDecoder().decode(read['Ana.png'])).toBe('first');
    expect(new TextDecoder().decode(read['Zoë.png'])).toBe('second, longer');
    // Method 0 (stored) in the first local header: PNGs are not deflated a second time.
    expect(new DataView(zip.buffer, zip.byteOffset).getUint16(8, true)).toBe(0);
  });

  test('file names: a repeated name is numbered, path and reserved characters are replaced', () => {
    expect(uniqueFileNames(['Ana', 'ana', 'Ana', '../etc/passwd', 'a:b*c', '   '], 'png')).toEqual([
      'Ana.png',
      'ana (2).png',
      'Ana (3).png',
      '_etc_passwd.png',
      'a_b_c.png',
      'board.png',
    ]);
  });
});
