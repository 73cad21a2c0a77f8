/** Errors the PATCH handlers raise; the server turns them into metav1.Status responses. */

export type PatchErrorReason = 'BadRequest' | 'Invalid' | 'Conflict' | 'UnsupportedMediaType';

const CODES: Record<PatchErrorReason, number> = {
  BadRequest: 400,
  Conflict: 409,
  UnsupportedMediaType: 415,
  Invalid: 422,
};

export class PatchError extends Error {
  readonly code: number;

  constructor(
    readonly reason: PatchErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'PatchError';
    this.code = CODES[reason];
  }
}

export interface ApplyConflict {
  manager: string;
  /** The field as structured-merge-diff prints a path, e.g. `.data.key` or `.spec.ports[port=80]`. */
  field: string;
}

/** A server-side apply conflict: 409 with one StatusCause per conflicting field. */
export class ApplyConflictError extends PatchError {
  constructor(readonly conflicts: ApplyConflict[]) {
    super('Conflict', conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }
}

/** The wording of the apiserver's fieldmanager conflict error; `manager` is already rendered. */
function conflictMessage(conflicts: ApplyConflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts as [ApplyConflict];
    return `Apply failed with 1 conflict: conflict with ${c.manager}: ${c.field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${manager}:`);
    for (const field of byManager.get(manager)!) lines.push(`- ${field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
