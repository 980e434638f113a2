import './LaserLayer.css';
import { LASER_FADE_MS } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { boardToScreen, type Viewport } from '../board/viewport.ts';
import type { AttentionClient, LaserPoint } from './attentionClient.ts';

/** The trail's colour: a laser red that reads on the light and the dark theme. */
const LASER_COLOR = '255, 45, 85';

/**
 * Laser trails on one board: each sender's recent points made on it (`boardId`: a laser on
 * another page is not this board's) joined into a line that fades over LASER_FADE_MS. Drawn on one canvas from a requestAnimationFrame loop that runs only while a trail is visible
 * (no React render per point). `data-points` tells tests how many points are still showing.
 */
export function LaserLayer({ attention, viewport, boardId }: { attention: AttentionClient; viewport: StoreApi<Viewport>; boardId: string }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    let frame = 0;
    const draw = () => {
      frame = 0;
      const alive = attention.pruneLaser();
      const dpr = window.devicePixelRatio || 1;
      const width = canvas.clientWidth;
      const height = canvas.clientHeight;
      if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const points = attention.laser.getState().points.filter((p) => p.boardId === boardId);
      canvas.dataset.points = String(points.length);
      const vp = viewport.getState();
      const now = Date.now();
      const bySender = new Map<string, LaserPoint[]>();
      for (const p of points) {
        const list = bySender.get(p.sessionId);
        if (list) list.push(p);
        else bySender.set(p.sessionId, [p]);
      }
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      for (const trail of bySender.values()) {
        for (let i = 0; i < trail.length; i++) {
          const p = trail[i]!;
          const fade = Math.max(0, 1 - (now - p.at) / LASER_FADE_MS);
          const s = boardToScreen(vp, p);
          const prev = trail[i - 1];
          if (prev) {
            const q = boardToScreen(vp, prev);
            ctx.strokeStyle = `rgba(${LASER_COLOR}, ${fade * 0.8})`;
            ctx.lineWidth = 4;
            ctx.beginPath();
            ctx.moveTo(q.x, q.y);
            ctx.lineTo(s.x, s.y);
            ctx.stroke();
          }
          if (i === trail.length - 1) {
            ctx.fillStyle = `rgba(${LASER_COLOR}, ${fade})`;
            ctx.beginPath();
            ctx.arc(s.x, s.y, 6, 0, Math.PI * 2);
            ctx.fill();
          }
        }
      }
      if (alive) frame = requestAnimationFrame(draw);
    };
    const wake = () => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    const unsubscribe = attention.laser.subscribe(wake);
    const unsubscribeViewport = viewport.subscribe(wake);
    return () => {
      unsubscribe();
      unsubscribeViewport();
      cancelAnimationFrame(frame);
    };
  }, [attention, viewport, boardId]);

  return <canvas ref={canvasRef} className="layer layer-laser" data-testid="laser-trail" data-points="0" aria-hidden="true" />;
}
