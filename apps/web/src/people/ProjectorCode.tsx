import './ProjectorCode.css';
import type { JoinAddress } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import { roomLink } from '../routing.ts';
import { ReachNote } from './InvitePanel.tsx';
import { QrCode } from './QrCode.tsx';
import { reachableByClass } from './joinAddress.ts';

/**
 * "Show the code": the join code, link and a QR code of the link filling the screen, large enough
 * to read and scan from the back of a classroom off a projector (the QR code takes up to 60 % of
 * the screen's height: on a 2.5 m wide projection that is a code about 1 m across, which a phone
 * reads from 8–10 m). Escape or Close returns to the board.
 */
export function ProjectorCode({ code, title, address, onClose }: { code: string; title: string; address: JoinAddress | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const link = roomLink(code, address?.base);
  const scannable = address !== null && reachableByClass(address);
  return (
    <dialog ref={ref} className="projector" aria-labelledby="projector-title" onCancel={onClose} onClose={onClose} data-testid="projector-code">
      <div className={`projector-body ${scannable ? 'with-qr' : ''}`}>
        <h2 id="projector-title" className="projector-title">Join “{title}”</h2>
        {scannable && <QrCode text={link} label="QR code of the join link" className="projector-qr" />}
        <div className="projector-text">
          <p className="projector-label">
            {scannable ? 'Scan the code, or go to ' : 'Go to '}
            <strong className="projector-link" data-testid="projector-link">{link.replace(/^https?:\/\//, '')}</strong>
            {' '}or enter the code
          </p>
          <p className="projector-code" aria-label={`Join code ${code.split('').join(' ')}`}>{code}</p>
          {address && <ReachNote address={address} className="projector-reach" />}
        </div>
        <button type="button" className="button button-secondary projector-close" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
