/**
 * A lesson's thumbnail in the library (issue 39): its first page, asked for only once the row is
 * on screen (a library of 200 lessons does not ask 200 times at load, I14), drawn as a still SVG.
 */
import { memo, useEffect, useRef, useState } from 'react';
import type { LessonThumbnail } from '@wb/protocol';
import { thumbnailViewBox } from '../pages/pageView.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import { inDrawingOrder } from '../elements/geometry.ts';
import { myLessonThumbnail } from '../api/teacherAccountApi.ts';

export const LessonThumb = memo(function LessonThumb({ code, label }: { code: string; label: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [thumbnail, setThumbnail] = useState<LessonThumbnail | null>(null);
  useEffect(() => {
    const node = ref.current;
    if (!node) return;
    let cancelled = false;
    const load = () => {
      myLessonThumbnail(code).then(
        (found) => !cancelled && setThumbnail(found),
        () => {},
      );
    };
    if (typeof IntersectionObserver === 'undefined') {
      load();
      return () => {
        cancelled = true;
      };
    }
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      load();
    });
    observer.observe(node);
    return () => {
      cancelled = true;
      observer.disconnect();
    };
  }, [code]);
  return (
    <span ref={ref} className="lesson-thumb" role="img" aria-label={label} data-elements={thumbnail?.elements.length ?? 0}>
      <svg viewBox={thumbnailViewBox(thumbnail?.elements ?? [])} aria-hidden="true">
        {thumbnail &&
          inDrawingOrder(thumbnail.elements).map((e) => <g key={e.id} dangerouslySetInnerHTML={{ __html: shapeSvg(e.shape) }} />)}
      </svg>
    </span>
  );
});
