import './Toolbar.css';
import type { Element } from '@wb/protocol';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { DUPLICATE_OFFSET, selectedShapes, shiftedBy } from '../elements/clipboard.ts';
import { restyle } from '../elements/geometry.ts';
import { STICKY_COLORS, TEXT_ALIGNS, TEXT_SIZES, TEXT_SIZE_NAMES, isTextShape, restyleText, textSizeOf, type TextStylePatch } from '../elements/textStyle.ts';
import { COMPACT_LAYOUT, useMediaQuery } from '../layout/mediaQuery.ts';
import { useTopDockRef } from '../layout/topDock.ts';
import { ImagePicker } from '../images/ImagePicker.tsx';
import type { ImageInput } from '../images/imageInput.ts';
import { EditPolicySelect } from './EditPolicySelect.tsx';
import { exportPng, exportSvg } from './exportImage.ts';
import { PaperPicker } from './PaperPicker.tsx';
import { COLORS, STROKE_WIDTHS, TOOLS, fillFor, type Tool, type ToolState } from './toolState.ts';
import { useT } from '../i18n/useT.ts';

interface ToolbarProps {
  tools: StoreApi<ToolState>;
  editor: BoardEditor;
  title: string;
  selfSessionId: string;
  nameOf: (userId: string) => string;
  /** Pictures picked with the Image button go here (null until the board is mounted). */
  imageInput: ImageInput | null;
  /** The picker also takes PDF worksheets (the teacher). */
  acceptPdf: boolean;
  /** Opens the equation editor: for a new equation (null) or the selected one. */
  onEquation: (elementId: string | null) => void;
  /** The lesson's controls (edit policy, the paper) are set from a lesson page, not from a private board. */
  lessonControls?: boolean;
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? '⌘' : 'Ctrl+';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * Tools, style, edit actions, export and the teacher's controls. Every control has a visible or
 * accessible name and its shortcut in the title and on the button; shortcuts work anywhere
 * except while typing.
 */
export function Toolbar({ tools, editor, title, selfSessionId, nameOf, imageInput, acceptPdf, onEquation, lessonControls = true }: ToolbarProps) {
  const tool = useStore(tools, (s) => s.tool);
  const style = useStore(tools, (s) => s.style);
  const filled = useStore(tools, (s) => s.filled);
  const selection = useStore(editor.board, (b) => b.selection);
  const elements = useStore(editor.board, (b) => b.elements);
  const canUndo = useStore(editor.board, (b) => b.canUndo);
  const canRedo = useStore(editor.board, (b) => b.canRedo);
  const readOnly = useStore(editor.board, (b) => b.readOnly);
  const selected = [...selection].map((id) => elements.get(id)).filter((e): e is Element => e !== undefined);
  const single = selected.length === 1 ? selected[0] : undefined;
  const compact = useMediaQuery(COMPACT_LAYOUT);
  const t = useT();
  // The pages strip stands under the board's actions however many rows they wrap to (layout/topDock.ts).
  const boardActionsRef = useTopDockRef('boardActionsBottom');

  const setTool = (next: Tool) => tools.setState({ tool: next });
  const setStyle = (patch: Partial<ToolState['style']>, fill?: boolean) => {
    const next = { ...tools.getState(), style: { ...tools.getState().style, ...patch }, ...(fill === undefined ? {} : { filled: fill }) };
    tools.setState(next);
    // A style chosen with a selection restyles it (one undoable action).
    const changes = selected
      .filter((e) => editor.refusalFor(e) === null)
      .map((e) => ({ id: e.id, shape: restyle(e.shape, { ...patch, ...(fill === undefined ? {} : { fill: fillFor(next) }) }) }))
      .filter((c, i) => c.shape !== selected[i]?.shape);
    if (changes.length > 0) editor.update(changes);
  };
  const deleteSelection = () => editor.delete(selection);

  // Text boxes and notes being made or selected: the style groups offer their text choices.
  const textTool = tool === 'text' || tool === 'sticky' ? tool : null;
  const allText = selected.length > 0 && selected.every((e) => isTextShape(e.shape));
  const textContext: 'text' | 'sticky' | null = textTool ?? (tool === 'select' && allText ? (selected.every((e) => e.shape.kind === 'sticky') ? 'sticky' : 'text') : null);
  const textChoice = useStore(tools, (s) => s.text);
  const shown = allText && tool === 'select' ? selected[0]?.shape : undefined;
  const shownText = shown && isTextShape(shown) ? { size: textSizeOf(shown), align: shown.align ?? 'left', fill: shown.kind === 'sticky' ? shown.fill : null } : { size: textChoice.size, align: textChoice.align, fill: textChoice.stickyFill };
  const setTextStyle = (patch: TextStylePatch) => {
    const current = tools.getState().text;
    tools.setState({ text: { size: patch.size ?? current.size, align: patch.align ?? current.align, stickyFill: patch.fill ?? current.stickyFill } });
    // A choice made with text selected restyles it (one undoable action).
    const changes = selected
      .filter((e) => editor.refusalFor(e) === null)
      .map((e) => ({ id: e.id, before: e.shape, shape: restyleText(e.shape, patch) }))
      .filter((c) => c.shape !== c.before)
      .map(({ id, shape }) => ({ id, shape }));
    if (changes.length > 0) editor.update(changes);
  };

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.altKey) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 'z') {
        e.preventDefault();
        if (e.shiftKey) editor.redo();
        else editor.undo();
        return;
      }
      if (mod && key === 'y') {
        e.preventDefault();
        editor.redo();
        return;
      }
      if (mod) return;
      if (e.key === 'Delete' || e.key === 'Backspace') {
        if (editor.board.getState().selection.size > 0) {
          e.preventDefault();
          editor.delete(editor.board.getState().selection);
        }
        return;
      }
      if (e.key === 'Escape') {
        editor.select([]);
        return;
      }
      const match = TOOLS.find((item) => item.key.toLowerCase() === key);
      // A locked board keeps the tool it has: a shortcut pressed meanwhile must not leave a
      // student on the pen once the teacher unlocks (the buttons are disabled for the same reason).
      if (match && !e.shiftKey && (match.tool === 'select' || !editor.board.getState().readOnly)) {
        tools.setState({ tool: match.tool });
        e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [editor, tools]);

  const noteColours = (
    <div className="toolbar-group" role="group" aria-label={t('toolbar.noteColour')}>
      {STICKY_COLORS.map((c) => (
        <button
          key={c.value}
          type="button"
          className="swatch swatch-note"
          aria-pressed={shownText.fill === c.value}
          aria-label={t('toolbar.noteColourLabel', { colour: t(c.name) })}
          title={t('toolbar.noteColourNamed', { colour: t(c.name) })}
          style={{ background: c.value }}
          onClick={() => setTextStyle({ fill: c.value })}
        />
      ))}
    </div>
  );
  const textGroup = (
    <div className="toolbar-group" role="group" aria-label={t('toolbar.textStyle')} data-testid="text-style">
      {TEXT_SIZES.map((size) => (
        <button
          key={size}
          type="button"
          className="tool-button text-size-button"
          aria-pressed={shownText.size === size}
          aria-label={t('toolbar.textSize', { size: t(TEXT_SIZE_NAMES[size]) })}
          title={t('toolbar.textSize', { size: t(TEXT_SIZE_NAMES[size]) })}
          onClick={() => setTextStyle({ size })}
        >
          {size}
        </button>
      ))}
      {TEXT_ALIGNS.map((a) => (
        <button key={a.value} type="button" className="tool-button" aria-pressed={shownText.align === a.value} aria-label={t(a.name)} title={t(a.name)} onClick={() => setTextStyle({ align: a.value })}>
          <AlignIcon align={a.value} />
        </button>
      ))}
    </div>
  );

  const styleGroups = textContext ? (
    <>
      {textContext === 'sticky' ? noteColours : strokeColours()}
      {textGroup}
    </>
  ) : (
    <>
      {strokeColours()}
      {widthGroup()}
    </>
  );

  function strokeColours() {
    return (
      <div className="toolbar-group" role="group" aria-label={t('toolbar.colour')}>
        {COLORS.map((c) => (
          <button
            key={c.value}
            type="button"
            className="swatch"
            aria-pressed={style.stroke === c.value}
            aria-label={t('toolbar.colourNamed', { colour: t(c.name) })}
            title={t(c.name)}
            style={{ background: c.value }}
            onClick={() => setStyle({ stroke: c.value })}
          />
        ))}
      </div>
    );
  }

  function widthGroup() {
    return (
      <div className="toolbar-group" role="group" aria-label={t('toolbar.strokeWidth')}>
        {STROKE_WIDTHS.map((w) => (
          <button
            key={w.value}
            type="button"
            className="tool-button width-button"
            aria-pressed={style.strokeWidth === w.value}
            aria-label={t('toolbar.strokeLabel', { width: t(w.name) })}
            title={t('toolbar.strokeNamed', { width: t(w.name) })}
            onClick={() => setStyle({ strokeWidth: w.value })}
          >
            <span className="width-sample" style={{ height: w.value }} aria-hidden="true" />
          </button>
        ))}
        <button type="button" className="tool-button" aria-pressed={filled} aria-label={t('toolbar.fill')} title={t('toolbar.fill')} onClick={() => setStyle({}, !filled)}>
          <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
            <rect x="2" y="2" width="14" height="14" rx="2" fill={filled ? 'currentColor' : 'none'} stroke="currentColor" strokeWidth="1.5" />
          </svg>
        </button>
      </div>
    );
  }

  const lockHolder = single?.lock && single.lock.sessionId !== selfSessionId ? single.lock : null;
  const ordered = () => editor.board.getState().ordered;
  const paper = useStore(editor.board, (b) => b.settings.paper);
  const [exportPaper, setExportPaper] = useState(false);
  const exportOptions = () => (exportPaper ? { paper } : {});
  const selectedEquation = single?.shape.kind === 'equation' && editor.refusalFor(single) === null ? single : undefined;

  return (
    <>
    <div className="toolbar panel" data-over-board role="toolbar" aria-label={t('toolbar.drawingTools')} aria-orientation={compact ? 'horizontal' : 'vertical'} data-testid="toolbar"
      data-layout={compact ? 'compact' : 'full'}>
      <div className="toolbar-group" role="group" aria-label={t('toolbar.tools')}>
        {TOOLS.map((item) => (
          <button
            key={item.tool}
            type="button"
            className="tool-button"
            aria-pressed={tool === item.tool}
            aria-label={t('toolbar.withKey', { name: t(item.label), key: item.key })}
            title={t('toolbar.withKey', { name: t(item.label), key: item.key })}
            aria-keyshortcuts={item.key}
            disabled={readOnly && item.tool !== 'select'}
            onClick={() => setTool(item.tool)}
            data-tool={item.tool}
          >
            <ToolIcon tool={item.tool} />
            <kbd data-key={item.key} />
          </button>
        ))}
      </div>
      {compact ? (
        <div className="toolbar-group" role="group" aria-label={t('toolbar.style')}>
          <StylePopover stroke={style.stroke}>{styleGroups}</StylePopover>
        </div>
      ) : (
        styleGroups
      )}
      <div className="toolbar-group" role="group" aria-label={t('toolbar.edit')}>
        {/* Shortcut hints are drawn by CSS from data-key; each button's name says the shortcut in words. */}
        <button type="button" className="tool-button" aria-label={t('toolbar.withKey', { name: t('toolbar.undo'), key: `${MOD}Z` })} title={t('toolbar.withKey', { name: t('toolbar.undo'), key: `${MOD}Z` })} aria-keyshortcuts="Control+Z" disabled={!canUndo || readOnly} onClick={() => editor.undo()}>
          <svg className="icon-flip-rtl" width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M6 4L3 7l3 3M3 7h8a4 4 0 010 8H8" />
          </svg>
          <kbd data-key={`${MOD}Z`} />
        </button>
        <button type="button" className="tool-button" aria-label={t('toolbar.withKey', { name: t('toolbar.redo'), key: `${MOD}Y` })} title={t('toolbar.redoTitle', { y: `${MOD}Y`, z: `${MOD}Shift+Z` })} aria-keyshortcuts="Control+Y Control+Shift+Z" disabled={!canRedo || readOnly} onClick={() => editor.redo()}>
          <svg className="icon-flip-rtl" width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M12 4l3 3-3 3M15 7H7a4 4 0 000 8h3" />
          </svg>
          <kbd data-key={`${MOD}Y`} />
        </button>
        <button
          type="button"
          className="tool-button"
          aria-label={t('toolbar.withKey', { name: t('toolbar.duplicate'), key: `${MOD}D` })}
          title={t('toolbar.withKey', { name: t('toolbar.duplicate'), key: `${MOD}D` })}
          aria-keyshortcuts="Control+D"
          disabled={selection.size === 0 || readOnly}
          onClick={() => editor.createMany(shiftedBy(selectedShapes(editor.board.getState().ordered, selection), DUPLICATE_OFFSET, DUPLICATE_OFFSET))}
        >
          <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round">
            <rect x="2.5" y="2.5" width="9" height="9" rx="1.5" />
            <path d="M6.5 14.5v.5a1 1 0 001 1h7a1 1 0 001-1V8a1 1 0 00-1-1h-.5" />
          </svg>
          <kbd data-key={`${MOD}D`} />
        </button>
        <button type="button" className="tool-button" aria-label={t('toolbar.withKey', { name: t('toolbar.delete'), key: 'Del' })} title={t('toolbar.deleteTitle')} aria-keyshortcuts="Delete" disabled={selection.size === 0 || readOnly} onClick={deleteSelection}>
          <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
            <path d="M3 5h12M7 5V3h4v2M5 5l1 10h6l1-10" />
          </svg>
          <kbd data-key="Del" />
        </button>
      </div>
    </div>
    <div ref={boardActionsRef} className="board-actions panel" data-over-board role="toolbar" aria-label={t('toolbar.boardActions')}>
      {/* Here, not among the drawing tools: the compact tool bar (a phone, 200 % zoom) has no room left. */}
      <div className="toolbar-group" role="group" aria-label={t('toolbar.add')}>
        <ImagePicker input={imageInput} acceptPdf={acceptPdf} disabled={readOnly} />
        <button
          type="button"
          className="tool-button"
          aria-label={selectedEquation ? t('toolbar.equationChange') : t('toolbar.equationWrite')}
          title={selectedEquation ? t('toolbar.equationChange') : t('toolbar.equationWriteTitle')}
          disabled={readOnly}
          data-testid="equation-button"
          onClick={() => onEquation(selectedEquation?.id ?? null)}
        >
          <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M13 3H4l5 6-5 6h9" />
          </svg>
        </button>
      </div>
      <div className="toolbar-group" role="group" aria-label={t('toolbar.export')}>
        <button type="button" className="tool-button text-button" onClick={() => void exportPng(ordered(), title, exportOptions())} aria-label={t('toolbar.exportBoardAs', { format: 'PNG' })} title={t('toolbar.exportAs', { format: 'PNG' })}>
          PNG
        </button>
        <button type="button" className="tool-button text-button" onClick={() => void exportSvg(ordered(), title, exportOptions())} aria-label={t('toolbar.exportBoardAs', { format: 'SVG' })} title={t('toolbar.exportAs', { format: 'SVG' })}>
          SVG
        </button>
        {paper !== 'blank' && (
          <label className="export-paper" title={t('toolbar.withPaperTitle')}>
            <input type="checkbox" checked={exportPaper} onChange={(e) => setExportPaper(e.target.checked)} data-testid="export-paper" />
            {t('toolbar.withPaper')}
          </label>
        )}
      </div>
      {editor.isTeacher && (
        <div className="toolbar-group" role="group" aria-label={t('toolbar.teacherControls')}>
          {lessonControls && <EditPolicySelect editor={editor} />}
          {lessonControls && <PaperPicker editor={editor} />}
          {single && (
            <span className="author-label" data-testid="selection-author" title={t('toolbar.authorTitle')}>
              {t('toolbar.author', { name: nameOf(single.createdBy) })}
            </span>
          )}
          {single && (
            <button type="button" className="tool-button text-button" onClick={() => void editor.setPinned(single.id, !single.pinned)} title={single.pinned ? t('toolbar.unpinTitle') : t('toolbar.pinTitle')}>
              {single.pinned ? t('toolbar.unpin') : t('toolbar.pin')}
            </button>
          )}
          {lockHolder && (
            <button type="button" className="tool-button text-button" onClick={() => single && void editor.breakLock(single.id)} title={t('toolbar.breakLockTitle', { name: nameOf(lockHolder.userId) })}>
              {t('toolbar.breakLock')}
            </button>
          )}
        </div>
      )}
    </div>
    </>
  );
}

/**
 * The colour and stroke choices behind one button, for the compact toolbar (phones, 200 % zoom):
 * the button shows the current colour; the choices open above it and close on Escape or outside.
 */
function StylePopover({ stroke, children }: { stroke: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const t = useT();
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="style-popover" ref={rootRef}>
      <button type="button" className="tool-button" aria-expanded={open} aria-controls="style-choices" aria-label={t('toolbar.colourAndStroke')} title={t('toolbar.colourAndStroke')}
        onClick={() => setOpen((o) => !o)}>
        <span className="style-current" style={{ background: stroke }} aria-hidden="true" />
      </button>
      {open && (
        <div id="style-choices" className="style-choices panel">
          {children}
        </div>
      )}
    </div>
  );
}

function AlignIcon({ align }: { align: 'left' | 'center' | 'right' }) {
  const lines = align === 'left' ? 'M3 5h14M3 9h9M3 13h14M3 17h9' : align === 'center' ? 'M3 5h14M5.5 9h9M3 13h14M5.5 17h9' : 'M3 5h14M8 9h9M3 13h14M8 17h9';
  return (
    <svg width="20" height="20" viewBox="0 0 20 22" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
      <path d={lines} />
    </svg>
  );
}

function ToolIcon({ tool }: { tool: Tool }) {
  const common = { width: 20, height: 20, viewBox: '0 0 20 20', 'aria-hidden': true, fill: 'none', stroke: 'currentColor', strokeWidth: 1.6, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const };
  switch (tool) {
    case 'select':
      return <svg {...common}><path d="M4 3l11 6-5 1.5L8 16z" /></svg>;
    case 'pen':
      return <svg {...common}><path d="M3 16c3-1 4-6 7-8s5 0 7-4" /></svg>;
    case 'rect':
      return <svg {...common}><rect x="3" y="5" width="14" height="10" rx="1.5" /></svg>;
    case 'ellipse':
      return <svg {...common}><ellipse cx="10" cy="10" rx="7" ry="5.5" /></svg>;
    case 'line':
      return <svg {...common}><path d="M4 16L16 4" /></svg>;
    case 'arrow':
      return <svg {...common}><path d="M4 16L16 4M9 4h7v7" /></svg>;
    case 'text':
      return <svg {...common}><path d="M4 5h12M10 5v11" /></svg>;
    case 'sticky':
      return <svg {...common}><path d="M4 4h12v8l-4 4H4z M12 16v-4h4" /></svg>;
    case 'eraser':
      return <svg {...common}><path d="M8 16h8M3.5 12.5l7-7 5 5-5.5 5.5H7z" /></svg>;
  }
}
