/**
 * How a board's elements are drawn, as geometry with no DOM, canvas or PDF in it: where a shape
 * lies, a pen stroke's outline (perfect-freehand), how text wraps and which way it reads, an
 * arrow's head, the paper's tile. The web client draws SVG and canvas from it; the server's PDF
 * export draws vector pages from it: one geometry, so a PDF page looks like the board.
 */
export * from './bounds.ts';
export * from './penOutline.ts';
export * from './textLayout.ts';
export * from './arrowHead.ts';
export * from './paper.ts';
