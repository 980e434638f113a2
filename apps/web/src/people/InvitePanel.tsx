import { useEffect, useRef, useState } from 'react';
import { roomLink } from '../routing.ts';

/** How long the "Copied" confirmation stays (ms). */
const COPIED_FEEDBACK_MS = 2_000;

/** The teacher's invitation: the code to read out and the link to paste into the class chat. */
export function InvitePanel({ code, onShowCode }: { code: string; onShowCode: () => void }) {
  const link = roomLink(code);
  const linkRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'link' | 'code' | 'failed' | null>(null);

  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async (what: 'link' | 'code') => {
    const text = what === 'link' ? link : code;
    try {
      // The Clipboard API needs a secure context; a LAN address over http does not have one.
      await navigator.clipboard.writeText(text);
      setCopied(what);
    } catch {
      linkRef.current?.select();
      setCopied(document.execCommand('copy') ? what : 'failed');
    }
  };

  return (
    <section className="panel invite" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite your class</h2>
      <p className="invite-code-label">Code</p>
      <p className="invite-code" data-testid="join-code" aria-label={`Join code ${code.split('').join(' ')}`}>
        {code}
      </p>
      <label htmlFor="invite-link" className="invite-link-label">
        Link
      </label>
      <div className="copy-row">
        <input id="invite-link" ref={linkRef} readOnly value={link} data-testid="join-link" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button button-primary" onClick={() => copy('link')}>
          Copy link
        </button>
      </div>
      <div className="invite-more">
        <button type="button" className="link-button" onClick={() => copy('code')}>
          Copy code only
        </button>
        <button type="button" className="link-button" onClick={onShowCode}>
          Show the code full screen
        </button>
      </div>
      <p className="copy-feedback" role="status">
        {copied === 'link' ? 'Link copied' : copied === 'code' ? 'Code copied' : copied === 'failed' ? 'Select the link and copy it' : ''}
      </p>
    </section>
  );
}
