import type { ElementShape } from '@wb/protocol';

/**
 * Undo and redo of this person's own actions. An undo is not a rewind: it becomes a new edit,
 * made against the element's current version like any other, so other people's work is never
 * rolled back with ours. Pure: it only remembers what changed and hands back what to do.
 */

/** One element before and after an action; null means "did not exist". */
export interface Change {
  readonly id: string;
  readonly before: ElementShape | null;
  readonly after: ElementShape | null;
}

/** What to do now: bring element `id` from `from` to `to` (null: absent). */
export interface Step {
  readonly id: string;
  readonly from: ElementShape | null;
  readonly to: ElementShape | null;
}

/** Actions remembered (I10). */
export const MAX_HISTORY = 200;

export class History {
  private undos: Change[][] = [];
  private redos: Change[][] = [];
  /** A deleted element comes back under a new id (deletions are final): old id -> new id. */
  private readonly aliases = new Map<string, string>();

  get canUndo(): boolean {
    return this.undos.length > 0;
  }

  get canRedo(): boolean {
    return this.redos.length > 0;
  }

  record(changes: readonly Change[]): void {
    if (changes.length === 0) return;
    this.undos.push([...changes]);
    if (this.undos.length > MAX_HISTORY) this.undos.shift();
    this.redos = [];
  }

  /** The steps that undo the last action, or null. */
  undo(): Step[] | null {
    const action = this.undos.pop();
    if (!action) return null;
    this.redos.push(action);
    return [...action].reverse().map((c) => ({ id: this.resolve(c.id), from: c.after, to: c.before }));
  }

  redo(): Step[] | null {
    const action = this.redos.pop();
    if (!action) return null;
    this.undos.push(action);
    return action.map((c) => ({ id: this.resolve(c.id), from: c.before, to: c.after }));
  }

  /** An undone deletion re-created element `oldId` as `newId`; later steps follow it there. */
  alias(oldId: string, newId: string): void {
    if (oldId !== newId) this.aliases.set(this.resolve(oldId), newId);
  }

  resolve(id: string): string {
    let current = id;
    for (let i = 0; i < 1_000; i++) {
      const next = this.aliases.get(current);
      if (next === undefined) return current;
      current = next;
    }
    return current;
  }
}
