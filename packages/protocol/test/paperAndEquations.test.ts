/**
 * Issue 23: the lesson's paper is a setting (validated, defaulted for copies without it) and an
 * equation is an element kind whose LaTeX source the server bounds but never parses.
 */
import { describe, expect, test } from 'vitest';
import { CreateRoomRequest, DEFAULT_PAPER, ElementShape, LessonSettings, LessonSettingsPatch, MAX_LATEX_LENGTH } from '../src/index.ts';

describe('paper is a lesson setting', () => {
  test.each(['blank', 'dots', 'grid', 'lined', 'graph', 'staff'])('the teacher may choose %s paper', (paper) => {
    expect(LessonSettingsPatch.safeParse({ paper }).success).toBe(true);
  });

  test.each([['checkered'], [''], [3], [null]])('paper %j is refused', (paper) => {
    expect(LessonSettingsPatch.safeParse({ paper }).success).toBe(false);
  });

  test('settings stored before paper existed read as the dotted board', () => {
    const old = LessonSettings.parse({ editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false });
    expect(old.paper).toBe(DEFAULT_PAPER);
    expect(DEFAULT_PAPER).toBe('dots');
  });

  test('a lesson may start on chosen paper', () => {
    expect(CreateRoomRequest.safeParse({ teacherName: 'Ms Rivera', memberKey: 'k'.repeat(43), settings: { paper: 'graph' } }).success).toBe(true);
    expect(CreateRoomRequest.safeParse({ teacherName: 'Ms Rivera', memberKey: 'k'.repeat(43), settings: { paper: 'wallpaper' } }).success).toBe(false);
  });
});

describe('an equation element carries bounded LaTeX source', () => {
  const equation = { kind: 'equation', x: 10, y: 20, w: 120, h: 40, latex: '\\frac{a}{b}', stroke: '#1e1e1e', fontSize: 28 } as const;

  test('an equation with LaTeX source is valid, turned or not', () => {
    expect(ElementShape.safeParse(equation).success).toBe(true);
    expect(ElementShape.safeParse({ ...equation, rotation: 90 }).success).toBe(true);
  });

  test('source at the limit is accepted, one character more is refused naming the latex field', () => {
    expect(ElementShape.safeParse({ ...equation, latex: 'x'.repeat(MAX_LATEX_LENGTH) }).success).toBe(true);
    const tooLong = ElementShape.safeParse({ ...equation, latex: 'x'.repeat(MAX_LATEX_LENGTH + 1) });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.path).toEqual(['latex']);
  });

  test.each([[''], ['   '], ['a\u0000b'], ['x\u202Ey']])('source %j is refused (empty or control characters)', (latex) => {
    expect(ElementShape.safeParse({ ...equation, latex }).success).toBe(false);
  });

  test('invalid LaTeX is the client\'s to show, not the server\'s to refuse', () => {
    expect(ElementShape.safeParse({ ...equation, latex: '\\frac{' }).success).toBe(true);
  });

  test('unknown fields and a missing font size are refused', () => {
    expect(ElementShape.safeParse({ ...equation, html: '<b>' }).success).toBe(false);
    const { fontSize: _dropped, ...noSize } = equation;
    expect(ElementShape.safeParse(noSize).success).toBe(false);
  });
});
