import './QrCode.css';
import { useEffect, useState } from 'react';

/**
 * A QR code of `text` as SVG, drawn by qrcode-generator (loaded on first use: only the teacher's
 * invitation and projector view need it, so students never download it). Medium error correction
 * (15 % of the code may be unreadable: a projector's glare, a keystone) and the standard quiet
 * zone of 4 modules; dark modules on white in both themes, which every phone camera reads.
 * The image is named for screen readers by `label`; the link and code it encodes stay beside it
 * as text.
 */
export function QrCode({ text, label, className }: { text: string; label: string; className?: string }) {
  const [svg, setSvg] = useState<{ text: string; markup: string } | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode-generator').then(({ default: qrcode }) => {
      const code = qrcode(0, 'M');
      code.addData(text);
      code.make();
      if (live) setSvg({ text, markup: code.createSvgTag({ cellSize: 1, margin: QUIET_ZONE_MODULES, scalable: true }) });
    });
    return () => {
      live = false;
    };
  }, [text]);
  const ready = svg?.text === text;
  return (
    <span
      className={`qr-code ${className ?? ''}`}
      role="img"
      aria-label={label}
      data-testid="join-qr"
      data-encodes={ready ? text : undefined}
      // The library's own SVG (a rect and one path), from our own link: no markup of anyone else.
      dangerouslySetInnerHTML={ready ? { __html: svg.markup } : undefined}
    />
  );
}

/** The quiet zone around a QR code, in modules (ISO/IEC 18004 asks for 4). */
const QUIET_ZONE_MODULES = 4;
