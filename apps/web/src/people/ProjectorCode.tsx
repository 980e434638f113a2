import { useEffect, useRef } from 'react';
import { roomLink } from '../routing.ts';

/**
 * "Show the code": the join code and link filling the screen, large enough to read from the back
 * of a classroom off a projector. Escape or Close returns to the board.
 */
export function ProjectorCode({ code, title, onClose }: { code: string; title: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} className="projector" aria-labelledby="projector-title" onCancel={onClose} onClose={onClose} data-testid="projector-code">
      <div className="projector-body">
        <h2 id="projector-title" className="projector-title">Join “{title}”</h2>
        <p className="projector-label">Go to <strong className="projector-link">{roomLink(code).replace(/^https?:\/\//, '')}</strong> or enter the code</p>
        <p className="projector-code" aria-label={`Join code ${code.split('').join(' ')}`}>{code}</p>
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
