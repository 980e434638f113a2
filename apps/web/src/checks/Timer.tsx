import { TIMER_MAX_MS, TIMER_PRESETS_MS, timerRemainingMs, type Timer } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
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
const presetText = (ms: number) => (ms < 60_000 ? `${ms / 1_000} s` : `${ms / 60_000} min`);

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
        <button type="button" className="timer-time timer-toggle" data-testid="timer-time" aria-expanded={expanded} aria-controls="timer-actions" title="Timer controls"
          onClick={() => setExpanded((open) => !open)}>
          {up ? 'Time’s up' : clockText(remaining)}
        </button>
      ) : (
        <span className="timer-time" data-testid="timer-time">{up ? 'Time’s up' : clockText(remaining)}</span>
      )}
      {paused && <span className="timer-note">paused</span>}
      {timer.freezeAtZero && !up && <span className="timer-note" title="At zero the students’ boards become look only">boards freeze at 0</span>}
      {timer.freezeAtZero && up && <span className="timer-note">{isTeacher ? 'students’ boards are look only' : 'your board is look only'}</span>}
      {/* Said once at zero, not every second. */}
      <span className="visually-hidden" aria-live="polite">{up ? 'Time is up.' : ''}</span>
      {isTeacher && (
        <span className="timer-actions panel" id="timer-actions">
          {paused ? (
            <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'resume' })}>Resume</button>
          ) : (
            !up && <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'pause' })}>Pause</button>
          )}
          <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'add' })}>+1 min</button>
          <button type="button" className="button button-secondary" onClick={() => void client.checks.timer({ action: 'stop' })}>Stop</button>
        </span>
      )}
    </div>
  );
}

/** The teacher's "Timer" dialog: a preset or any length, and the options. */
export function TimerDialog({ client, onClose }: { client: RoomClient; onClose: () => void }) {
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
      <h2 id="timer-dialog-title">Timer</h2>
      <p>Everyone sees the same countdown.</p>
      <div className="timer-presets" role="group" aria-label="Presets">
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
          Minutes <input type="number" inputMode="numeric" min={0} max={120} value={minutes} onChange={(e) => setMinutes(e.target.value)} />
        </label>
        <label>
          Seconds <input type="number" inputMode="numeric" min={0} max={59} value={seconds} onChange={(e) => setSeconds(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary" disabled={!customOk}>
          Start
        </button>
      </form>
      <label className="checks-option">
        <input type="checkbox" checked={freeze} onChange={(e) => setFreeze(e.target.checked)} /> Freeze the students’ boards at zero
      </label>
      <label className="checks-option">
        <input type="checkbox" checked={sound} onChange={(e) => setSound(e.target.checked)} /> Play a sound at zero
      </label>
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
