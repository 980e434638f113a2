import type { EditPolicy } from '@wb/protocol';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';

/** What each policy means, in the teacher's words: short, so the select never clips its label. */
export const editPolicyLabel: Record<EditPolicy, string> = {
  everyone: 'Students edit everything',
  own: 'Students edit own work',
  look: 'Students only look',
};

/**
 * The teacher's choice of what students may change, live for the whole lesson. The server decides
 * every edit by it (I11); this only sends the choice and shows the current one.
 */
export function EditPolicySelect({ editor }: { editor: BoardEditor }) {
  const policy = useStore(editor.board, (b) => b.editPolicy);
  return (
    <label className="policy-select" title="What students may change on the board">
      <span className="visually-hidden">Students may</span>
      <select
        value={policy}
        data-testid="edit-policy"
        aria-label="What students may change"
        onChange={(e) => void editor.setEditPolicy(e.target.value as EditPolicy)}
      >
        {(Object.keys(editPolicyLabel) as EditPolicy[]).map((p) => (
          <option key={p} value={p}>
            {editPolicyLabel[p]}
          </option>
        ))}
      </select>
    </label>
  );
}
