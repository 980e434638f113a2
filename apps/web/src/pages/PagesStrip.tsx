/**
 * The lesson's pages as a strip of thumbnails (issue 39, docs/guide.md "Pages"). The teacher adds,
 * duplicates, renames, reorders and deletes pages (with an undo), goes to one (the paced class goes
 * with her), lets the class browse or brings everyone back. A student sees where the class is and,
 * when the teacher lets them browse, goes to another page. The server decides every one of these
 * (pagesClient.ts); this only asks.
 *
 * A page whose engine is held (the one on the stage, the teacher's recent ones) is drawn live from
 * its state; another is a numbered sheet of its paper until it is visited (the rest on demand).
 *
 * One row: the thumbnails (scrolling sideways when they outgrow it), the teacher's ‹ › to move the
 * page on the stage, and her other page actions behind one button (PageActions.tsx); on a laptop's
 * window the class's pacing too. A student's row starts with where the class is.
 */
import { memo, useLayoutEffect, useRef, type CSSProperties } from 'react';
import { useStore } from 'zustand';
import { bottomDock } from '../layout/bottomDock.ts';
import { ROOMY_LAYOUT, useMediaQuery } from '../layout/mediaQuery.ts';
import { useTopDockRef } from '../layout/topDock.ts';
import type { Element, Page, Paper } from '@wb/protocol';
import type { RoomClient } from '../connection/roomClient.ts';
import type { BoardEngine } from '../connection/boardEngine.ts';
import { thumbnailViewBox } from './pageView.ts';
import { PacingButton, PageActions } from './PageActions.tsx';
import { shapeSvg } from '../elements/elementSvg.ts';
import { inDrawingOrder } from '../elements/geometry.ts';
import { refusalMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';
import './PagesStrip.css';

export function PagesStrip({ client, isTeacher }: { client: RoomClient; isTeacher: boolean }) {
  const t = useT();
  const pages = useStore(client.pages.store, (s) => s.pages);
  const viewing = useStore(client.pages.store, (s) => s.viewing);
  const deleted = useStore(client.pages.store, (s) => s.deleted);
  const refusal = useStore(client.pages.store, (s) => s.refusal);
  const engines = useStore(client.boards, (s) => s.byId);
  // Above the attention kit's bar, however many rows it wraps to (PagesStrip.css).
  const attentionBarHeight = useStore(bottomDock, (s) => s.attentionBarHeight);
  // A laptop's row has room for the class's pacing beside the page actions; elsewhere it is among them.
  const pacingInRow = useMediaQuery(ROOMY_LAYOUT);
  const list = useRef<HTMLOListElement>(null);
  // What stands under the strip in the compact layout (a student's hand, the queue of hands) goes below it.
  const stripRef = useTopDockRef('pagesStripHeight');
  const current = pages ? (pages.pages.find((p) => p.id === viewing) ?? pages.pages[0]) : undefined;
  // The page on the stage stays in sight in the thumbnails' scroller (a page added at the end, the
  // class taken to page 9 on a phone).
  useLayoutEffect(() => {
    const ol = list.current;
    const thumb = ol?.querySelector('[aria-current="page"]');
    if (!ol || !thumb) return;
    const [view, item] = [ol.getBoundingClientRect(), thumb.getBoundingClientRect()];
    const by = item.left < view.left ? item.left - view.left : item.right > view.right ? item.right - view.right : 0;
    if (by !== 0) ol.scrollBy({ left: by });
  }, [current?.id, pages?.pages.length]);
  if (!pages || !current) return null;
  // A one-page lesson shows no strip to a student: there is nowhere to go.
  if (!isTeacher && pages.pages.length < 2) return null;
  const paced = pages.pacing === 'paced';
  const number = (page: Page) => pages.pages.indexOf(page) + 1;
  const nameOf = (page: Page) => page.title || t('pages.pageNumber', { number: number(page) });
  const engineOf = (page: Page): BoardEngine | undefined => (page.id === client.classBoard.id ? client.classBoard : engines.get(page.id));

  return (
    <nav ref={stripRef} className="pages-strip panel" data-over-board aria-label={t('pages.strip')} data-pacing={pages.pacing} data-role={isTeacher ? 'teacher' : 'student'}
      style={{ '--attention-bar-height': `${attentionBarHeight}px` } as CSSProperties}>
      <div className="pages-strip-row">
        {!isTeacher && (
          <p className="pages-strip-note" data-testid="pages-note">
            {paced ? t('pages.pacedNote', { number: number(current), count: pages.pages.length }) : t('pages.freeNote')}
          </p>
        )}
        <ol ref={list} className="pages-strip-list">
          {pages.pages.map((page) => {
            const here = page.id === current.id;
            const teachersPage = page.id === pages.currentPageId;
            const mayGo = isTeacher || !paced;
            return (
              <li key={page.id} className="pages-strip-item" data-current={here ? 'true' : 'false'}>
                <button
                  type="button"
                  className="pages-thumb"
                  aria-current={here ? 'page' : undefined}
                  aria-label={teachersPage && !isTeacher ? t('pages.teachersPage', { name: nameOf(page) }) : nameOf(page)}
                  disabled={!mayGo}
                  onClick={() => void client.pages.go(page.id)}
                  data-page-id={page.id}
                >
                  <PageThumb engine={engineOf(page)} paper={page.background} />
                  <span className="pages-thumb-label">{number(page)}</span>
                  {teachersPage && !paced && <span className="pages-thumb-teacher" aria-hidden="true">●</span>}
                </button>
              </li>
            );
          })}
        </ol>
        {isTeacher && (
          <div className="pages-strip-controls">
            <button type="button" className="button button-secondary pages-move" aria-label={t('pages.moveEarlier')} title={t('pages.moveEarlier')} disabled={number(current) === 1}
              onClick={() => void client.pages.shift(current.id, -1)}>
              ‹
            </button>
            <button type="button" className="button button-secondary pages-move" aria-label={t('pages.moveLater')} title={t('pages.moveLater')} disabled={number(current) === pages.pages.length}
              onClick={() => void client.pages.shift(current.id, 1)}>
              ›
            </button>
            <PageActions pages={client.pages} current={current} currentName={nameOf(current)} canDelete={pages.pages.length > 1}
              canUndoDelete={deleted.length > 0} paced={paced} withPacing={!pacingInRow} />
            {pacingInRow && <PacingButton pages={client.pages} paced={paced} />}
          </div>
        )}
      </div>
      {refusal && (
        <p className="form-error pages-strip-error" role="alert">
          {refusalMessage(refusal.code)}{' '}
          <button type="button" className="button-link" onClick={() => client.pages.dismissRefusal()}>{t('action.close')}</button>
        </p>
      )}
    </nav>
  );
}

/** A page's thumbnail: its elements live when its engine is held, else its paper alone. */
const PageThumb = memo(function PageThumb({ engine, paper }: { engine: BoardEngine | undefined; paper: Paper }) {
  return engine ? <LiveThumb engine={engine} paper={paper} /> : <Sheet elements={[]} paper={paper} />;
});

function LiveThumb({ engine, paper }: { engine: BoardEngine; paper: Paper }) {
  const elements = useStore(engine.board, (b) => b.state?.elements);
  return <Sheet elements={elements ? [...elements.values()] : []} paper={paper} />;
}

const Sheet = memo(function Sheet({ elements, paper }: { elements: readonly Element[]; paper: Paper }) {
  return (
    <svg className="pages-sheet" viewBox={thumbnailViewBox(elements)} aria-hidden="true" data-paper={paper} data-elements={elements.length}>
      {inDrawingOrder(elements).map((e) => (
        <g key={e.id} dangerouslySetInnerHTML={{ __html: shapeSvg(e.shape) }} />
      ))}
    </svg>
  );
});
