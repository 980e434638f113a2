import { CLIPBOARD_TYPE, readClipboard, type ElementShape } from '@wb/protocol';
import { describe, expect, test, vi } from 'vitest';
import { ALICE, EL1, EL2, element, rect } from '../sync/testFixtures.ts';
import { registerImagePictures } from '../images/imageRefs.ts';
import { clipboardContent, clipboardPicture, DUPLICATE_OFFSET, placedAt, selectedShapes, shiftedBy } from './clipboard.ts';

const note: ElementShape = { kind: 'sticky', x: 300, y: 0, w: 200, h: 100, text: 'Page 12 <b>', fill: '#fff3a8' };

describe('CB3: what a copy carries', () => {
  test('the selected shapes only, in drawing order, without ids, authors or locks', () => {
    const ordered = [element(EL1, 3, rect(0, 0), { z: 1, lock: { sessionId: ALICE, userId: ALICE, generation: 2 } }), element(EL2, 1, note, { z: 2 })];
    expect(selectedShapes(ordered, new Set([EL2, EL1]))).toEqual([rect(0, 0), note]);
    const content = clipboardContent(selectedShapes(ordered, new Set([EL1, EL2])));
    if (!content) throw new Error('no content');
    expect(readClipboard(content.elements)).toEqual({ ok: true, payload: { type: CLIPBOARD_TYPE, version: 1, shapes: [rect(0, 0), note] } });
    expect(content.elements).not.toContain(EL1);
  });

  test('other apps get an SVG of the shapes, and their text as text (escaped in the SVG)', () => {
    const content = clipboardContent([rect(0, 0), note]);
    expect(content?.svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(content?.svg).toContain('Page 12 &lt;b&gt;');
    expect(content?.text).toBe('Page 12 <b>');
    // Without text, the text is the SVG itself.
    expect(clipboardContent([rect(0, 0)])?.text).toMatch(/^<svg /);
    expect(clipboardContent([])).toBeNull();
  });
});

describe('CB7: a copy\'s picture for other apps carries its images', () => {
  const photo = (sha: string, x: number): ElementShape => ({ kind: 'image', x, y: 0, w: 160, h: 90, sha256: sha.repeat(64), naturalWidth: 1600, naturalHeight: 900 });
  const cat = photo('a', 0);
  const missing = photo('b', 200);
  const catUri = 'data:image/png;base64,iVBORw0KGgo=';

  test('the SVG the PNG is drawn from embeds each picture as a data: URI (fetched once per image), in the same bounds as the copy', async () => {
    const dataUriOf = vi.fn(async (sha256: string) => (sha256 === 'a'.repeat(64) ? catUri : null));
    const shapes = [cat, rect(0, 120), { ...cat, x: 400 }, missing];
    const picture = await clipboardPicture(shapes, dataUriOf);
    expect(dataUriOf.mock.calls.map(([sha]) => sha).sort()).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
    // Both copies of the cat carry its picture; the image that could not be had is a placeholder.
    expect(picture.svg.match(/<image [^>]*href="data:image\/png;base64,iVBORw0KGgo="/g)).toHaveLength(2);
    expect(picture.svg.match(/data-image-pending="true"/g)).toHaveLength(1);
    expect(picture.bounds).toEqual(clipboardContent(shapes)?.bounds);
  });

  test('the copy event\'s own SVG never names the screen\'s object URLs: another app could not open them', () => {
    const unregister = registerImagePictures({ href: () => 'blob:http://localhost/1234', picture: () => null, dataUri: async () => catUri });
    try {
      const content = clipboardContent([cat]);
      expect(content?.svg).not.toContain('blob:');
      expect(content?.text).not.toContain('blob:');
    } finally {
      unregister();
    }
  });

  test('by default the pictures come from the lesson\'s image library (the export\'s source)', async () => {
    const unregister = registerImagePictures({ href: () => null, picture: () => null, dataUri: async () => catUri });
    try {
      expect((await clipboardPicture([cat])).svg).toContain(`href="${catUri}"`);
    } finally {
      unregister();
    }
  });
});

describe('CB4: where pasted and duplicated shapes land', () => {
  test('a paste centres what it covers on the pointer, keeping the shapes\' places relative to each other', () => {
    // rect(0, 0) is 100 × 50; the note reaches x 500, y 100: the middle of both is (250, 50).
    const placed = placedAt([rect(0, 0), note], { x: 1_000, y: 1_000 });
    expect(placed.map((s) => [s.x, s.y])).toEqual([[750, 950], [1_050, 950]]);
  });

  test('a duplicate lands a step right and down of its original', () => {
    expect(shiftedBy([rect(10, 20)], DUPLICATE_OFFSET, DUPLICATE_OFFSET)).toEqual([{ ...rect(10, 20), x: 10 + DUPLICATE_OFFSET, y: 20 + DUPLICATE_OFFSET }]);
  });
});
