import { useLayoutEffect, type RefObject } from 'react';
import { create } from 'zustand';

/**
 * What holds the bottom centre of the board. The attention kit's bar sits there, and the page strip
 * stands above it; the bar wraps to a second row when the class controls do not fit, so the strip
 * reads the bar's height as it is now rather than a fixed offset.
 */
export const bottomDock = create<{ attentionBarHeight: number }>(() => ({ attentionBarHeight: 0 }));

/** Keeps `bottomDock.attentionBarHeight` equal to the bar's height (0 when hidden or gone). */
export function useReportAttentionBarHeight(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const bar = ref.current;
    if (!bar) return;
    const report = () => bottomDock.setState({ attentionBarHeight: bar.offsetHeight });
    report();
    // Old engines without ResizeObserver keep the height the bar had when it appeared.
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(report) : null;
    observer?.observe(bar);
    return () => {
      observer?.disconnect();
      bottomDock.setState({ attentionBarHeight: 0 });
    };
  }, [ref]);
}
