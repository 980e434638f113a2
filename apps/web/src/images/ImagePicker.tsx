import { useRef } from 'react';
import type { ImageInput } from './imageInput.ts';
import { IMAGE_ACCEPT } from './imageUpload.ts';
import { useT } from '../i18n/useT.ts';

/**
 * The toolbar's Image button: opens the file picker for pictures (and, for the teacher, PDF
 * worksheets); the chosen files are added at the pointer or the middle of the view.
 */
export function ImagePicker({ input, acceptPdf, disabled }: { input: ImageInput | null; acceptPdf: boolean; disabled: boolean }) {
  const fileRef = useRef<HTMLInputElement>(null);
  const t = useT();
  const label = acceptPdf ? t('image.addOrPdf') : t('image.add');
  return (
    <>
      <button type="button" className="tool-button" aria-label={label} title={t('image.title', { label })} disabled={disabled || !input}
        onClick={() => fileRef.current?.click()} data-testid="image-picker">
        <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round">
          <rect x="2.5" y="3.5" width="13" height="11" rx="1.5" />
          <circle cx="6.5" cy="7.5" r="1.3" />
          <path d="M3 13l4-4 3 3 2-2 3.5 3.5" />
        </svg>
      </button>
      <input ref={fileRef} type="file" hidden multiple accept={acceptPdf ? `${IMAGE_ACCEPT},application/pdf` : IMAGE_ACCEPT} data-testid="image-file"
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          // Cleared so that choosing the same file again fires a change.
          e.currentTarget.value = '';
          if (input && files.length > 0) void input.addFiles(files);
        }} />
    </>
  );
}
