import './ProjectorCode.css';
import type { JoinAddress } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import { roomLink } from '../routing.ts';
import { ReachNote } from './InvitePanel.tsx';
import { QrCode } from './QrCode.tsx';
import { reachableByClass } from './joinAddress.ts';
import { Trans } from '@lingui/react';
import { useT } from '../i18n/useT.ts';

/**
 * "Show the code": the join code, link and a QR code of the link filling the screen, large enough
 * to read and scan from the back of a classroom off a projector (the QR code takes up to 60 % of
 * the screen's height: on a 2.5 m wide projection that is a code about 1 m across, which a phone
 * reads from 8–10 m). Escape or Close returns to the board.
 */
export function ProjectorCode({ code, title, address, onClose }: { code: string; title: string; address: JoinAddress | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const t = useT();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const link = roomLink(code, address?.base);
  const scannable = address !== null && reachableByClass(address);
  return (
    <dialog ref={ref} className="projector" aria-labelledby="projector-title" onCancel={onClose} onClose={onClose} data-testid="projector-code">
      <div className={`projector-body ${scannable ? 'with-qr' : ''}`}>
        <h2 id="projector-title" className="projector-title">{t('projector.title', { title })}</h2>
        {scannable && <QrCode text={link} label={t('invite.qr')} className="projector-qr" />}
        <div className="projector-text">
          <p className="projector-label">
            <Trans
              id={scannable ? 'projector.scanOrGo' : 'projector.go'}
              values={{ link: link.replace(/^https?:\/\//, '') }}
              components={{ 0: <strong className="projector-link" data-testid="projector-link" dir="ltr" /> }}
            />
          </p>
          <p className="projector-code" aria-label={t('invite.codeSpelled', { code: code.split('').join(' ') })}>{code}</p>
          {address && <ReachNote address={address} className="projector-reach" />}
        </div>
        <button type="button" className="button button-secondary projector-close" onClick={onClose} autoFocus>
          {t('action.close')}
        </button>
      </div>
    </dialog>
  );
}
