import { POLL_CHOICES, POLL_TEXT_MAX, type Poll, type PollAnswer, type PollKind } from '@wb/protocol';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
import type { RosterEntry } from '../sync/roster.ts';
import type { MessageId } from '@lingui/core';
import { refusalMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';
import './checks.css';

const KIND_LABELS: Record<PollKind, MessageId> = {
  yesno: 'poll.kindYesNo',
  abcd: 'poll.kindAbcd',
  scale: 'poll.kindScale',
  thumbs: 'poll.kindThumbs',
  custom: 'poll.kindCustom',
  text: 'poll.kindText',
};

/** Counts per choice (and typed answers) from the teacher's answers: her live view. */
export function countAnswers(poll: Poll, answers: Iterable<PollAnswer>): { counts: number[]; texts: { text: string; count: number }[] } {
  const counts = poll.choices.map(() => 0);
  const texts = new Map<string, { text: string; count: number }>();
  for (const a of answers) {
    if (a.pollId !== poll.id) continue;
    if (a.choice !== null && a.choice < counts.length) counts[a.choice] = (counts[a.choice] ?? 0) + 1;
    if (a.text !== null) {
      const key = a.text.toLowerCase();
      const known = texts.get(key);
      texts.set(key, { text: known?.text ?? a.text, count: (known?.count ?? 0) + 1 });
    }
  }
  return { counts, texts: [...texts.values()].sort((x, y) => y.count - x.count || x.text.localeCompare(y.text)) };
}

/** The results as a bar chart: labels and counts only, never a name. */
export function PollChart({ poll, counts, texts }: { poll: Poll; counts: readonly number[]; texts: readonly { text: string; count: number }[] }) {
  const t = useT();
  const rows = poll.kind === 'text' ? texts.slice(0, 8).map((x) => ({ label: x.text, count: x.count })) : poll.choices.map((label, i) => ({ label, count: counts[i] ?? 0 }));
  const most = Math.max(1, ...rows.map((r) => r.count));
  const summary = rows.map((r) => `${r.label}: ${r.count}`).join(', ');
  return (
    <div className="poll-chart" role="img" aria-label={t('poll.results', { summary: summary || t('poll.noAnswersYet') })} data-testid="poll-chart">
      {rows.map((r, i) => (
        <div className="poll-bar" key={`${i}-${r.label}`} data-count={r.count}>
          <span className="poll-bar-label">{r.label}</span>
          <span className="poll-bar-track">
            <span className="poll-bar-fill" style={{ width: `${(r.count / most) * 100}%` }} />
          </span>
          <span className="poll-bar-count">{r.count}</span>
        </div>
      ))}
      {rows.length === 0 && <p className="poll-empty">{t('poll.noAnswersYetSentence')}</p>}
    </div>
  );
}

/** The teacher's "Quick poll" dialog: the question and the kind of answer. */
export function PollDialog({ client, onClose }: { client: RoomClient; onClose: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const [question, setQuestion] = useState('');
  const [kind, setKind] = useState<PollKind>('yesno');
  const [labels, setLabels] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const custom = labels.split(/\n|,/).map((l) => l.trim()).filter(Boolean);
  const ready = question.trim().length > 0 && (kind !== 'custom' || (custom.length >= 2 && custom.length <= 8));
  return (
    <dialog ref={ref} className="dialog checks-dialog" aria-labelledby="poll-dialog-title" onCancel={onClose} data-testid="poll-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!ready) return;
          void client.checks.openPoll(question.trim(), kind, kind === 'custom' ? custom : undefined).then((refused) => (refused ? setError(refusalMessage(refused.code)) : onClose()));
        }}>
        <h2 id="poll-dialog-title">{t('checks.poll')}</h2>
        <label>
          {t('poll.question')} <input value={question} maxLength={200} onChange={(e) => setQuestion(e.target.value)} placeholder={t('poll.questionPlaceholder')} />
        </label>
        <fieldset>
          <legend>{t('poll.answers')}</legend>
          {(Object.keys(KIND_LABELS) as PollKind[]).map((k) => (
            <label key={k}>
              <input type="radio" name="poll-kind" checked={kind === k} onChange={() => setKind(k)} /> {t(KIND_LABELS[k])}
              {k !== 'custom' && k !== 'text' && <span className="poll-kind-choices"> ({POLL_CHOICES[k].join(', ')})</span>}
            </label>
          ))}
        </fieldset>
        {kind === 'custom' && (
          <label>
            {t('poll.customChoices')} <textarea rows={4} value={labels} onChange={(e) => setLabels(e.target.value)} />
          </label>
        )}
        {error && <p role="alert">{error}</p>}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={!ready}>
            {t('poll.ask')}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * The teacher's live poll: counts as they come, who has not answered, close, show the results to
 * the class (as a chart without names). Hidden (here only) with "Dismiss" once closed.
 */
export function TeacherPoll({ client, roster }: { client: RoomClient; roster: readonly RosterEntry[] }) {
  const t = useT();
  const poll = useStore(client.view, (v) => v.state?.poll ?? null);
  const answers = useStore(client.checks.view, (v) => v.answers);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const results = useMemo(() => (poll ? countAnswers(poll, answers.values()) : null), [poll, answers]);
  if (!poll || !results || dismissed === poll.id) return null;
  const students = roster.filter((e) => e.role === 'student' && (e.state === 'live' || e.state === 'reconnecting' || answers.has(e.userId)));
  const waiting = students.filter((e) => !answers.has(e.userId));
  return (
    <section className="poll-panel panel" aria-label={t('checks.poll')} data-testid="teacher-poll">
      <h2>{poll.question}</h2>
      <p className="poll-meta" data-testid="poll-answered">
        {t('poll.answered', { answered: answers.size, students: students.length })}{poll.status === 'closed' ? ` · ${t('poll.closed')}` : ''}
        {poll.resultsShown ? ` · ${t('poll.shownToClass')}` : ''}
      </p>
      <PollChart poll={poll} counts={results.counts} texts={results.texts} />
      {waiting.length > 0 && poll.status === 'open' && (
        <details className="poll-waiting" data-testid="poll-waiting">
          <summary>{t('poll.notAnswered', { count: waiting.length })}</summary>
          <ul>
            {waiting.map((e) => (
              <li key={e.userId}>{e.displayName}</li>
            ))}
          </ul>
        </details>
      )}
      <div className="actions">
        {poll.status === 'open' && (
          <button type="button" className="button button-secondary" onClick={() => void client.checks.closePoll(poll.id)}>
            {t('poll.close')}
          </button>
        )}
        <button type="button" className="button button-secondary" aria-pressed={poll.resultsShown} onClick={() => void client.checks.showPoll(poll.id, !poll.resultsShown)}>
          {poll.resultsShown ? t('poll.hideResults') : t('poll.showResults')}
        </button>
        {poll.status === 'closed' && (
          <button type="button" className="button button-secondary" onClick={() => setDismissed(poll.id)}>
            {t('poll.dismiss')}
          </button>
        )}
      </div>
    </section>
  );
}

/** A student's poll: the choices (or a short text), changeable until closed; the chart when the teacher shows it. */
export function StudentPoll({ client }: { client: RoomClient }) {
  const t = useT();
  const poll = useStore(client.view, (v) => v.state?.poll ?? null);
  const mine = useStore(client.checks.view, (v) => (v.mine && v.mine.pollId === poll?.id ? v.mine : null));
  const [text, setText] = useState('');
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (!poll || dismissed === poll.id) return null;
  const open = poll.status === 'open';
  if (!open && !poll.resultsShown) {
    return null;
  }
  return (
    <section className="poll-panel poll-card panel" aria-label={t('checks.poll')} data-testid="student-poll">
      <h2>{poll.question}</h2>
      {open && poll.kind !== 'text' && (
        <div className="poll-choices" role="group" aria-label={t('poll.yourAnswerLabel')}>
          {poll.choices.map((label, i) => (
            <button key={i} type="button" className="button button-secondary poll-choice" aria-pressed={mine?.choice === i}
              onClick={() => void client.checks.answer(poll.id, { choice: i })}>
              {label}
            </button>
          ))}
        </div>
      )}
      {open && poll.kind === 'text' && (
        <form className="poll-text"
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim()) void client.checks.answer(poll.id, { text: text.trim() });
          }}>
          <input aria-label={t('poll.yourAnswerLabel')} maxLength={POLL_TEXT_MAX} value={text} onChange={(e) => setText(e.target.value)} placeholder={mine?.text ?? ''} />
          <button type="submit" className="button button-primary" disabled={!text.trim()}>
            {t('poll.send')}
          </button>
        </form>
      )}
      <p className="poll-meta" data-testid="poll-mine">
        {mine ? t('poll.yourAnswer', { answer: mine.text ?? poll.choices[mine.choice ?? -1] ?? '' }) : open ? t('poll.choose') : t('poll.didNotAnswer')}
        {!open ? ` · ${t('poll.isClosed')}` : ''}
      </p>
      {poll.resultsShown && poll.results && <PollChart poll={poll} counts={poll.results.counts} texts={poll.results.texts} />}
      {!open && (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => setDismissed(poll.id)}>
            {t('poll.dismiss')}
          </button>
        </div>
      )}
    </section>
  );
}
