import type { EditPolicy } from '@wb/protocol';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import type { MessageId } from '@lingui/core';
import { useT } from '../i18n/useT.ts';

/** What each policy means, in the teacher's words: short, so the select never clips its label. */
export const editPolicyLabel: Record<EditPolicy, MessageId> = {
  everyone: 'policy.everyone',
  own: 'policy.own',
  look: 'policy.look',
};

/**
 * The teacher's choice of what students may change, live for the whole lesson. The server decides
 * every edit by it (I11); this only sends the choice and shows the current one.
 */
export function EditPolicySelect({ editor }: { editor: BoardEditor }) {
  const policy = useStore(editor.board, (b) => b.editPolicy);
  const t = useT();
  return (
    <label className="policy-select" title={t('policy.title')}>
      <span className="visually-hidden">{t('policy.studentsMay')}</span>
      <select
        value={policy}
        data-testid="edit-policy"
        aria-label={t('policy.label')}
        onChange={(e) => void editor.setEditPolicy(e.target.value as EditPolicy)}
      >
        {(Object.keys(editPolicyLabel) as EditPolicy[]).map((p) => (
          <option key={p} value={p}>
            {t(editPolicyLabel[p])}
          </option>
        ))}
      </select>
    </label>
  );
}
