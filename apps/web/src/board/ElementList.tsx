import './ElementList.css';
import type { Element } from '@wb/protocol';
import { useMemo } from 'react';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { ELEMENT_LIST_CAP, announceSelection, describeElement, readingOrder } from './keyboardFocus.ts';
import { useT } from '../i18n/useT.ts';

interface ElementListProps {
  editor: BoardEditor;
  nameOf: (userId: string) => string;
  /** An item was chosen: select that element (and bring it into view). */
  onChoose: (element: Element) => void;
}

/**
 * The board's elements for screen readers and keyboards: a list in reading order (the order Tab
 * walks), hidden until focus enters it, where choosing an item selects that element; and a live
 * announcement of the selection. Capped at ELEMENT_LIST_CAP items (the rest are counted and
 * reached with Tab on the board), so a board of thousands of strokes stays cheap to render.
 */
export function ElementList({ editor, nameOf, onChoose }: ElementListProps) {
  const elements = useStore(editor.board, (b) => b.elements);
  const selection = useStore(editor.board, (b) => b.selection);
  const order = useMemo(() => readingOrder(elements.values()), [elements]);
  const shown = order.slice(0, ELEMENT_LIST_CAP);
  const more = order.length - shown.length;
  const t = useT();
  return (
    <>
      <section className="element-list panel" aria-label={t('elements.label')} data-testid="element-list">
        <h2 className="element-list-title">{t('elements.title', { count: order.length })}</h2>
        {order.length === 0 ? (
          <p>{t('elements.empty')}</p>
        ) : (
          <ul>
            {shown.map((el) => (
              <li key={el.id}>
                <button type="button" className="element-list-item" aria-pressed={selection.has(el.id)} onClick={() => onChoose(el)}>
                  {describeElement(el, nameOf)}
                </button>
              </li>
            ))}
          </ul>
        )}
        {more > 0 && <p>{t('elements.more', { count: more })}</p>}
      </section>
      <div className="visually-hidden" role="status" aria-live="polite" data-testid="selection-announcement">
        {announceSelection(order, selection, nameOf)}
      </div>
    </>
  );
}
