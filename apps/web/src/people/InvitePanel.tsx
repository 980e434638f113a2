import './InvitePanel.css';
import { JoinReach, type JoinAddress } from '@wb/protocol';
import { useEffect, useState } from 'react';
import { copyText } from '../platform/systemClipboard.ts';
import { roomLink } from '../routing.ts';
import { QrCode } from './QrCode.tsx';
import { OPEN_TO_CLASS_COMMAND, reachableByClass } from './joinAddress.ts';
import { Trans } from '@lingui/react';
import { useT } from '../i18n/useT.ts';

/** How long the "Copied" confirmation stays (ms). */
const COPIED_FEEDBACK_MS = 2_000;

/**
 * The teacher's invitation: the code to read out, the link to paste into the class chat and a QR
 * code of it to scan, all at the address students can open (`address`, from the server; null
 * while it is asked). When only this computer can reach the server, it says so and how to open
 * the lesson to the class, instead of showing a code nobody else can use.
 */
export function InvitePanel({ code, address, onShowCode }: { code: string; address: JoinAddress | null; onShowCode: () => void }) {
  const link = roomLink(code, address?.base);
  const [copied, setCopied] = useState<'link' | 'code' | 'failed' | null>(null);
  const t = useT();

  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async (what: 'link' | 'code') => {
    setCopied((await copyText(what === 'link' ? link : code)) ? what : 'failed');
  };

  return (
    <section className="panel invite" aria-labelledby="invite-heading">
      <h2 id="invite-heading">{t('invite.heading')}</h2>
      <div className="invite-top">
        <div>
          <p className="invite-code-label">{t('lesson.code')}</p>
          <p className="invite-code" data-testid="join-code" aria-label={t('invite.codeSpelled', { code: code.split('').join(' ') })}>
            {code}
          </p>
        </div>
        {address && reachableByClass(address) && (
          <button type="button" className="invite-qr-button" onClick={onShowCode} aria-label={t('invite.qrShow')}>
            <QrCode text={link} label={t('invite.qr')} />
          </button>
        )}
      </div>
      {address && <ReachNote address={address} />}
      <label htmlFor="invite-link" className="invite-link-label">
        {t('invite.link')}
      </label>
      <div className="copy-row">
        <input id="invite-link" readOnly value={link} data-testid="join-link" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button button-primary" onClick={() => copy('link')}>
          {t('invite.copyLink')}
        </button>
      </div>
      {address && address.others.length > 0 && (
        <details className="invite-others">
          <summary>{t('invite.others')}</summary>
          <p>{t('invite.othersText')}</p>
          <ul>
            {address.others.map((other) => (
              <li key={other}>{other}</li>
            ))}
          </ul>
        </details>
      )}
      <div className="invite-more">
        <button type="button" className="link-button" onClick={() => copy('code')}>
          {t('invite.copyCode')}
        </button>
        <button type="button" className="link-button" onClick={onShowCode}>
          {t('invite.fullScreen')}
        </button>
      </div>
      <p className="copy-feedback" role="status">
        {copied === 'link' ? t('invite.linkCopied') : copied === 'code' ? t('invite.codeCopied') : copied === 'failed' ? t('invite.copyFailed') : ''}
      </p>
    </section>
  );
}

/** When students cannot reach this address: why, and the one thing to do about it. */
export function ReachNote({ address, className }: { address: JoinAddress; className?: string }) {
  const t = useT();
  if (address.reach === JoinReach.THIS_COMPUTER) {
    return (
      <p className={`invite-reach ${className ?? ''}`} data-testid="join-reach" data-reach={address.reach}>
        <Trans id="invite.thisComputer" values={{ command: OPEN_TO_CLASS_COMMAND }} components={{ 0: <code dir="ltr" /> }} />
      </p>
    );
  }
  if (address.reach === JoinReach.NO_NETWORK) {
    return (
      <p className={`invite-reach ${className ?? ''}`} data-testid="join-reach" data-reach={address.reach}>
        {t('invite.noNetwork')}
      </p>
    );
  }
  return null;
}
