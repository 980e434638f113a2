import { TIMER_MAX_MS, TIMER_PRESETS_MS, timerRemainingMs, type Timer } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
import { i18n } from '../i18n/i18n.ts';
import { useT } from '../i18n/useT.ts';
import './checks.css';

/** "4:05", or "1:02:03" past an hour: whole seconds, rounded up (0:00 only at zero). */
export function clockText(ms: number): string {
  const total = Math.ceil(Math.max(0, ms) / 1_000);
  const h = Math.floor(total / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A preset's label: "30 s", "2 min". */
const presetText = (ms: number) => (ms < 60_000 ? i18n._('timer.presetSeconds', { count: ms / 1_000 }) : i18n._('timer.presetMinutes', { count: ms / 60_000 }));

/** Milliseconds left on the lesson's timer, on the server's clock as this screen estimates it; refreshed 4 times a second. */
function useRemaining(client: RoomClient, timer: Timer | null | undefined): number | null {
  const [, tick] = useState(0);
  useEffect(() => {
    if (!timer || timer.status !== 'running') return;
    const id = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(id);
  }, [timer]);
  return timer ? timerRemainingMs(timer, client.checks.serverNow()) : null;
}

/** A short, soft tone (no file to load), played once when the teacher turned sound on. */
function chime(): void {
  const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Context) return;
  const ctx = new Context();
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, ctx.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.15, ctx.currentTime + 0.05);
  gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 1.2);
  const tone = ctx.createOscillator();
  tone.frequency.value = 660;
  tone.connect(gain).connect(ctx.destination);
  tone.start();
  tone.stop(ctx.currentTime + 1.3);
  tone.onended = () => void ctx.close();
}

/**
 * The lesson's countdown for everyone, from the server's deadline; at zero a gentle sign (and a
 * tone only if the teacher turned sound on). The teacher's chip carries pause, a minute more, stop.
 */
export function TimerChip({ client, isTeacher }: { client: RoomClient; isTeacher: boolean }) {
  const t = useT();
  const timer = useStore(client.view, (v) => v.state?.room.timer ?? null);
  const remaining = useRemaining(client, timer);
  const chimedFor = useRef<string | null>(null);
  // On a phone the teacher's actions fold under the time (the bar has no room for them).
  const [expanded, setExpanded] = useState(false);
  const up = timer !== null && remaining === 0;
  useEffect(() => {
    if (!timer || !up || !timer.sound || timer.endsAt === null || chimedFor.current === timer.endsAt) return;
    chimedFor.current = timer.endsAt;
    chime();
  }, [timer, up]);
  if (!timer || remaining === null) return null;
  const paused = timer.status === 'paused';
  return (
    <div className="timer-chip panel" role="timer" aria-live="off" data-testid="timer" data-state={up ? 'up' : paused ? 'paused' : 'running'} data-expanded={expanded}>
      {isTeacher ? (
        <button type="button" className="timer-time timer-toggle" data-testid="timer-time" aria-expanded={expanded} aria-controls="timer-actions" title={t('timer.controls')}
          onClick={() => setExpanded((open) => !open)}>
          {up ? t('timer.up') : clockText(remaining)}
        </button>
      ) : (
        <span className="timer-time" data-testid="timer-time">{up ? t('timer.up') : clockText(remaining)}</span>
      )}
      {paused && <span className="timer-note">{t('timer.paused')}</span>}
      {timer.freezeAtZero && !up && <span className="timer-note" title={t('timer.freezeTitle')}>{t('timer.freezeNote')}</span>}
      {timer.freezeAtZero && up && <span className="timer-note">{isTeacher ? t('timer.frozenTeacher') : t('timer.frozenStudent')}</span>}
      {/* Said once at zero, not every second. */}
      <span className="visually-hidden" aria-live="polite">{up ? t('timer.upSaid') : ''}</span>
      {isTeacher && (
        <span className="timer-actions panel" id="timer-actions">
          {paused ? (
            <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'resume' })}>{t('timer.resume')}</button>
          ) : (
            !up && <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'pause' })}>{t('timer.pause')}</button>
          )}
          <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'add' })}>{t('timer.addMinute')}</button>
          <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'stop' })}>{t('timer.stop')}</button>
        </span>
      )}
    </div>
  );
}

/** The teacher's "Timer" dialog: a preset or any length, and the options. */
export function TimerDialog({ client, onClose }: { client: RoomClient; onClose: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const current = useStore(client.view, (v) => v.state?.room.timer ?? null);
  const [minutes, setMinutes] = useState('5');
  const [seconds, setSeconds] = useState('0');
  const [freeze, setFreeze] = useState(current?.freezeAtZero ?? false);
  const [sound, setSound] = useState(current?.sound ?? false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const start = async (durationMs: number) => {
    if (await client.checks.timer({ action: 'start', durationMs, freezeAtZero: freeze, sound })) onClose();
  };
  const custom = (Number(minutes) || 0) * 60_000 + (Number(seconds) || 0) * 1_000;
  const customOk = custom >= 1_000 && custom <= TIMER_MAX_MS;
  return (
    <dialog ref={ref} className="dialog checks-dialog" aria-labelledby="timer-dialog-title" onCancel={onClose} data-testid="timer-dialog">
      <h2 id="timer-dialog-title">{t('checks.timer')}</h2>
      <p>{t('timer.dialogText')}</p>
      <div className="timer-presets" role="group" aria-label={t('timer.presets')}>
        {TIMER_PRESETS_MS.map((ms) => (
          <button key={ms} type="button" className="button button-secondary" onClick={() => void start(ms)}>
            {presetText(ms)}
          </button>
        ))}
      </div>
      <form
        className="timer-custom"
        onSubmit={(e) => {
          e.preventDefault();
          if (customOk) void start(custom);
        }}>
        <label>
          {t('timer.minutes')} <input type="number" inputMode="numeric" min={0} max={120} value={minutes} onChange={(e) => setMinutes(e.target.value)} />
        </label>
        <label>
          {t('timer.seconds')} <input type="number" inputMode="numeric" min={0} max={59} value={seconds} onChange={(e) => setSeconds(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary" disabled={!customOk}>
          {t('timer.start')}
        </button>
      </form>
      <label className="checks-option">
        <input type="checkbox" checked={freeze} onChange={(e) => setFreeze(e.target.checked)} /> {t('timer.freezeOption')}
      </label>
      <label className="checks-option">
        <input type="checkbox" checked={sound} onChange={(e) => setSound(e.target.checked)} /> {t('timer.soundOption')}
      </label>
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onClose}>
          {t('action.cancel')}
        </button>
      </div>
    </dialog>
  );
}
