/**
 * The store-only zip writer: an archive any unzip tool reads (checked here by reading it back by
 * the format's own offsets), the IEEE CRC-32 of each file, UTF-8 names, and file names that never
 * collide or escape the archive's folder.
 */
import { describe, expect, test } from 'vitest';
import { crc32, uniqueFileNames, zipStore } from './zipStore.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('zip store', () => {
  test('CRC-32 is the IEEE one ("123456789" gives cbf43926)', () => {
    expect(crc32(bytes('123456789')).toString(16)).toBe('cbf43926');
    expect(crc32(new Uint8Array())).toBe(0);
  });

  test('the archive lists every file once, in order, each stored whole with its CRC at its offset', () => {
    const files = [
      { name: 'Ana.png', data: bytes('first') },
      { name: 'Zoë.png', data: bytes('second, longer') },
    ];
    const zip = zipStore(files, new Date(2031, 2, 1, 8, 30, 10));
    const view = new DataView(zip.buffer);
    const end = zip.length - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(2);
    let at = view.getUint32(end + 16, true);
    const read = [];
    for (let i = 0; i < 2; i++) {
      expect(view.getUint32(at, true)).toBe(0x02014b50);
      const size = view.getUint32(at + 20, true);
      const nameLength = view.getUint16(at + 28, true);
      const local = view.getUint32(at + 42, true);
      expect(view.getUint32(local, true)).toBe(0x04034b50);
      expect(view.getUint16(local + 8, true)).toBe(0); // stored
      const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength));
      const data = zip.subarray(local + 30 + nameLength, local + 30 + nameLength + size);
      expect(view.getUint32(at + 16, true)).toBe(crc32(data));
      read.push({ name, data: new TextDecoder().decode(data) });
      at += 46 + nameLength;
    }
    expect(read).toEqual([
      { name: 'Ana.png', data: 'first' },
      { name: 'Zoë.png', data: 'second, longer' },
    ]);
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
