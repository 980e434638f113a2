import { describe, expect, test } from 'vitest';
import { FIT_MARGIN_PX, MIN_FREE_PX, contentOnScreen, dockedPanels, fitToContent, freeAreaFor, openingView, showsContent, type ScreenRect, type Size } from './contentView.ts';
import { MIN_ZOOM, initialViewport, type Viewport } from './viewport.ts';
import type { Bounds } from '../elements/geometry.ts';

/** A teacher's laptop (1280 x 800) as the lesson lays it out: the panels over the board. */
const laptop: Size = { width: 1280, height: 800 };
const topBar: ScreenRect = { left: 12, top: 12, right: 1268, bottom: 68 };
const boardActions: ScreenRect = { left: 470, top: 76, right: 810, bottom: 124 };
const toolsColumn: ScreenRect = { left: 12, top: 76, right: 108, bottom: 572 };
const pagesStrip: ScreenRect = { left: 320, top: 644, right: 960, bottom: 788 };
const zoom: ScreenRect = { left: 12, top: 746, right: 178, bottom: 788 };
const peoplePanel: ScreenRect = { left: 988, top: 76, right: 1268, bottom: 788 };
const laptopPanels = [topBar, boardActions, toolsColumn, pagesStrip, zoom, peoplePanel];

/** A phone (390 x 844): the top bar, the board actions and the pages strip at the top, the zoom above the tools at the bottom. */
const phone: Size = { width: 390, height: 844 };
const phonePanels: ScreenRect[] = [
  { left: 8, top: 8, right: 382, bottom: 57 },
  { left: 8, top: 64, right: 320, bottom: 110 },
  { left: 8, top: 112, right: 382, bottom: 198 },
  { left: 217, top: 698, right: 382, bottom: 739 },
  { left: 8, top: 742, right: 382, bottom: 836 },
];

/** A laptop at 200 % zoom (640 x 400): the same, the zoom at the right above one row of tools. */
const short: Size = { width: 640, height: 400 };
const shortPanels: ScreenRect[] = [
  { left: 8, top: 8, right: 632, bottom: 56 },
  { left: 8, top: 64, right: 308, bottom: 110 },
  { left: 8, top: 112, right: 632, bottom: 176 },
  { left: 466, top: 294, right: 632, bottom: 334 },
  { left: 8, top: 342, right: 632, bottom: 392 },
];

/** An imported US-letter page: its picture at the board's origin, 800 units tall. */
const worksheet: Bounds = { x: 0, y: 0, w: 618.18, h: 800 };

const overlaps = (a: ScreenRect, b: ScreenRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The content's box on screen lies on the surface and under no panel. */
function expectInView(vp: Viewport, content: Bounds, screen: Size, panels: readonly ScreenRect[]) {
  const c = contentOnScreen(vp, content);
  expect(c.left).toBeGreaterThanOrEqual(0);
  expect(c.top).toBeGreaterThanOrEqual(0);
  expect(c.right).toBeLessThanOrEqual(screen.width);
  expect(c.bottom).toBeLessThanOrEqual(screen.height);
  expect(panels.filter((p) => overlaps(p, c))).toEqual([]);
  expect(showsContent(vp, content, screen, panels)).toBe(true);
}

describe('the free area: where the panels over the board leave room', () => {
  test('[area] panels are clipped to the surface; those off it or with no size take nothing', () => {
    expect(dockedPanels(laptop, [{ left: 0, top: -80, right: 1280, bottom: -10 }, { left: 10, top: 10, right: 10, bottom: 40 }])).toEqual([]);
    expect(dockedPanels(laptop, [{ left: -20, top: -20, right: 1300, bottom: 60 }])).toEqual([{ left: 0, top: 0, right: 1280, bottom: 60 }]);
  });

  test('[area] a panel covering more than half the surface is a sheet over it (the people panel on a phone), not a docked panel: left out', () => {
    const sheet: ScreenRect = { left: 12, top: 72, right: 378, bottom: 832 };
    expect(dockedPanels(phone, [...phonePanels, sheet])).toEqual(phonePanels);
  });

  test('[area] a page on a laptop goes below the board actions, above the pages strip, between the tools and the people panel', () => {
    expect(freeAreaFor(worksheet, laptop, laptopPanels)).toEqual({ left: 108, top: 124, right: 988, bottom: 644 });
  });

  test('[area] a panel in a corner is gone round where that holds the content larger: at 640 x 400 beside the zoom, down to the tools', () => {
    expect(freeAreaFor(worksheet, short, shortPanels)).toEqual({ left: 0, top: 176, right: 466, bottom: 342 });
    // A wide drawing is larger above the zoom, across the whole width.
    expect(freeAreaFor({ x: 0, y: 0, w: 3000, h: 200 }, short, shortPanels)).toEqual({ left: 0, top: 176, right: 640, bottom: 294 });
  });

  test('[area] when the panels leave no room MIN_FREE_PX each way, the whole surface (content partly under them beats a sliver)', () => {
    const cramped: Size = { width: 640, height: 240 };
    const panels = [{ left: 0, top: 0, right: 640, bottom: 90 }, { left: 0, top: 180, right: 640, bottom: 240 }];
    expect(cramped.height - 90 - 60).toBeLessThan(MIN_FREE_PX);
    expect(freeAreaFor(worksheet, cramped, panels)).toEqual({ left: 0, top: 0, right: 640, bottom: 240 });
  });
});

describe('fit to content', () => {
  test('[fit] an imported page at 1280 x 800 is shown whole between the top bar and the pages strip, centred in what is left', () => {
    const vp = fitToContent(worksheet, laptop, laptopPanels);
    expect(vp.zoom).toBeCloseTo((644 - 124 - 2 * FIT_MARGIN_PX) / 800, 9);
    expectInView(vp, worksheet, laptop, laptopPanels);
    const c = contentOnScreen(vp, worksheet);
    expect((c.left + c.right) / 2).toBeCloseTo((108 + 988) / 2, 9);
    expect((c.top + c.bottom) / 2).toBeCloseTo((124 + 644) / 2, 9);
  });

  test('[fit] on a phone the page is limited by the width: whole, the margin on both sides, above the zoom', () => {
    const vp = fitToContent(worksheet, phone, phonePanels);
    expect(vp.zoom).toBeCloseTo((390 - 2 * FIT_MARGIN_PX) / worksheet.w, 9);
    expectInView(vp, worksheet, phone, phonePanels);
  });

  test('[fit] at 640 x 400 the page is shown whole beside the zoom, as large as the room allows', () => {
    const vp = fitToContent(worksheet, short, shortPanels);
    expect(vp.zoom).toBeCloseTo((342 - 176 - 2 * FIT_MARGIN_PX) / 800, 9);
    expectInView(vp, worksheet, short, shortPanels);
  });

  test('[fit] never above 100 %: small content is centred at 100 %, not blown up', () => {
    const note: Bounds = { x: 2400, y: -900, w: 120, h: 80 };
    const vp = fitToContent(note, laptop, laptopPanels);
    expect(vp.zoom).toBe(1);
    expectInView(vp, note, laptop, laptopPanels);
  });

  test('[fit] within the zoom bounds: content too large even at the least zoom is centred at MIN_ZOOM', () => {
    const huge: Bounds = { x: -40_000, y: -30_000, w: 80_000, h: 60_000 };
    const vp = fitToContent(huge, laptop, laptopPanels);
    expect(vp.zoom).toBe(MIN_ZOOM);
    const c = contentOnScreen(vp, huge);
    const area = freeAreaFor(huge, laptop, laptopPanels);
    expect((c.left + c.right) / 2).toBeCloseTo((area.left + area.right) / 2, 9);
    expect((c.top + c.bottom) / 2).toBeCloseTo((area.top + area.bottom) / 2, 9);
  });

  test('[fit] a line along one axis (no extent on the other) fits by the axis it has, with no NaN', () => {
    const rule: Bounds = { x: 0, y: 300, w: 3000, h: 0 };
    const vp = fitToContent(rule, laptop, laptopPanels);
    expect(Number.isFinite(vp.x) && Number.isFinite(vp.y)).toBe(true);
    // The widest free band: between the tools and the people panel.
    expect(vp.zoom).toBeCloseTo((988 - 108 - 2 * FIT_MARGIN_PX) / 3000, 9);
    expectInView(vp, rule, laptop, laptopPanels);
    const dot: Bounds = { x: 50, y: 50, w: 0, h: 0 };
    expect(fitToContent(dot, laptop, laptopPanels).zoom).toBe(1);
  });

  test('[fit] the math has no direction: the tools docked at the right (a right-to-left page) give the mirror image, at the same zoom', () => {
    const mirrored = laptopPanels.map((p) => ({ left: laptop.width - p.right, top: p.top, right: laptop.width - p.left, bottom: p.bottom }));
    const content: Bounds = { x: -200, y: 100, w: 1400, h: 500 };
    // The same content mirrored about the board's x = 0.
    const flipped: Bounds = { ...content, x: -(content.x + content.w) };
    const ltr = fitToContent(content, laptop, laptopPanels);
    const rtl = fitToContent(flipped, laptop, mirrored);
    expect(rtl.zoom).toBe(ltr.zoom);
    expect(rtl.y).toBe(ltr.y);
    const [a, b] = [contentOnScreen(ltr, content), contentOnScreen(rtl, flipped)];
    expect(b.left).toBeCloseTo(laptop.width - a.right, 9);
    expect(b.right).toBeCloseTo(laptop.width - a.left, 9);
  });
});

describe('the view a board opens at', () => {
  test('[open] an imported page under the top bar and the tools is fitted', () => {
    expect(showsContent(initialViewport, worksheet, laptop, laptopPanels)).toBe(false);
    const vp = openingView(worksheet, initialViewport, laptop, laptopPanels);
    expect(vp).not.toBeNull();
    expectInView(vp!, worksheet, laptop, laptopPanels);
  });

  test('[open] content already in view at the initial view is left as it is (null)', () => {
    // Left of the board actions and right of the tools: under no panel, though level with the actions.
    const drawing: Bounds = { x: 140, y: 90, w: 300, h: 200 };
    expect(openingView(drawing, initialViewport, laptop, laptopPanels)).toBeNull();
  });

  test('[open] an empty board, or a surface not laid out yet, is left as it is', () => {
    expect(openingView(null, initialViewport, laptop, laptopPanels)).toBeNull();
    expect(openingView(worksheet, initialViewport, { width: 0, height: 0 }, [])).toBeNull();
  });

  test('[open] content reaching past the surface is fitted even with no panel over it', () => {
    const wide: Bounds = { x: 0, y: 0, w: 2000, h: 300 };
    const vp = openingView(wide, initialViewport, laptop, []);
    expect(vp?.zoom).toBeCloseTo((1280 - 2 * FIT_MARGIN_PX) / 2000, 9);
  });
});
