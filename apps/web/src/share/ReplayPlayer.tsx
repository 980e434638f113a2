import './ReplayPlayer.css';
import type { Paper, ReplayPage, ReplayStep } from '@wb/protocol';
import { useEffect, useMemo, useRef, useState } from 'react';
import { errorMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';
import { ReadOnlyBoard } from './ReadOnlyBoard.tsx';
import { REPLAY_SPEEDS, ReplayBoard, advance, clockText, lessonTimeAt, type Playhead, type ReplaySpeed } from './replayPlayer.ts';

/** Pages of history a replay reads at most (I10): 100 × REPLAY_PAGE_STEPS is more than a board keeps. */
const MAX_PAGES = 100;

/**
 * A board played back as it was built: a timeline to scrub, play and pause, at 1×, 4× or 16×.
 * The history arrives a page at a time (`loadPage`, one request each); the board shows its final
 * state once the first page is in and the timeline grows as the rest arrive. The stepping is
 * replayPlayer.ts's; the drawing is the board's element renderer (ReadOnlyBoard).
 */
export function ReplayPlayer({ loadPage, paper, label, fitKey }: { loadPage: (after: string | null) => Promise<ReplayPage>; paper: Paper; label: string; fitKey: string }) {
  const t = useT();
  const [steps, setSteps] = useState<readonly ReplayStep[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [position, setPosition] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<ReplaySpeed>(4);
  const board = useMemo(() => new ReplayBoard(), []);
  const atEnd = useRef(true);

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      let all: ReplayStep[] = [];
      let after: string | null = null;
      try {
        for (let page = 0; page < MAX_PAGES; page++) {
          const read: ReplayPage = await loadPage(after);
          if (cancelled) return;
          all = [...all, ...read.steps];
          setSteps(all);
          // Until the viewer moves the playhead, it stays at the end: the board as it was left.
          if (atEnd.current) setPosition(all.length);
          if (read.next === null) break;
          after = read.next;
        }
      } catch (e) {
        if (!cancelled) setError(errorMessage(e, 'share.replayFailed'));
      } finally {
        if (!cancelled) setLoading(false);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [loadPage]);

  board.setSteps(steps);
  const elements = board.seek(position);

  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    let last = performance.now();
    let head: Playhead = { position, owedMs: 0 };
    const tick = (now: number) => {
      head = advance(steps, head, now - last, speed);
      last = now;
      setPosition(head.position);
      if (head.position >= steps.length) {
        setPlaying(false);
        return;
      }
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
    // The playhead restarts from the position only when playback (re)starts or the speed changes.
  }, [playing, speed, steps]);

  const moveTo = (next: number) => {
    atEnd.current = next >= steps.length;
    setPosition(next);
  };
  const total = steps.length;
  const now = clockText(lessonTimeAt(steps, position));
  const length = clockText(lessonTimeAt(steps, total));

  return (
    <div className="replay-player">
      <ReadOnlyBoard elements={elements} paper={paper} label={label} fitKey={fitKey} />
      <div className="replay-bar panel" role="group" aria-label={t('share.replayControls')} data-testid="replay-bar">
        <button
          type="button"
          className="button button-primary replay-play"
          disabled={total === 0}
          onClick={() => {
            if (playing) return setPlaying(false);
            if (position >= total) moveTo(0);
            atEnd.current = false;
            setPlaying(true);
          }}
        >
          {playing ? t('share.pause') : t('share.play')}
        </button>
        <input
          type="range"
          className="replay-timeline"
          min={0}
          max={total}
          step={1}
          value={position}
          disabled={total === 0}
          aria-label={t('share.timeline')}
          aria-valuetext={t('share.timelineValue', { step: position, total, time: now })}
          data-testid="replay-timeline"
          onChange={(e) => {
            setPlaying(false);
            moveTo(Number(e.currentTarget.value));
          }}
        />
        <span className="replay-time" data-testid="replay-time">
          {now} / {length}
        </span>
        <div className="replay-speeds" role="group" aria-label={t('share.speed')}>
          {REPLAY_SPEEDS.map((s) => (
            <button key={s} type="button" aria-pressed={speed === s} className="replay-speed" onClick={() => setSpeed(s)}>
              {t('share.speedTimes', { speed: s })}
            </button>
          ))}
        </div>
        <span className="replay-status" role="status" data-testid="replay-status">
          {error ?? (loading ? t('share.replayLoading') : t('share.replaySteps', { step: position, total }))}
        </span>
      </div>
    </div>
  );
}
