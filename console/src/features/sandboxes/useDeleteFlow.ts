import { useState } from 'react';
import type { Blocked } from './DeleteDialogs';
import { toastSandboxFailure, toastSandboxSuccess } from './outcomes';
import { useDeleteSandboxes } from './queries';
import type { DeleteAnswer } from './types';

/** What a first, unforced deletion left: the asked sandboxes workflows still use, with those workflows. */
export function blockedBy(answer: DeleteAnswer, names: Map<string, string>): Blocked[] {
  const bySandbox = new Map<string, Blocked>();
  for (const workflow of answer.workflows)
    for (const uuid of workflow.sandboxes) {
      if (!names.has(uuid) || answer.deleted_sandbox.includes(uuid)) continue;
      const item = bySandbox.get(uuid) ?? { uuid, name: names.get(uuid)!, workflows: [] };
      item.workflows.push(workflow);
      bySandbox.set(uuid, item);
    }
  return [...bySandbox.values()];
}

/**
 * Spec 1 §2.7's deletion: confirm, delete without force, then offer the sandboxes workflows
 * still use as a checklist and delete the checked ones by force.
 */
export function useDeleteFlow(onDeleted: (ids: string[]) => void) {
  const remove = useDeleteSandboxes();
  const [confirming, setConfirming] = useState<{ ids: string[]; names: Map<string, string> } | null>(null);
  const [blocked, setBlocked] = useState<Blocked[] | null>(null);

  const done = (answer: DeleteAnswer) => {
    if (answer.deleted_sandbox.length > 0) {
      toastSandboxSuccess('delete');
      onDeleted(answer.deleted_sandbox);
    }
  };
  const confirm = () => {
    if (!confirming) return;
    const { ids, names } = confirming;
    remove.mutate(
      { ids, force: false },
      {
        onSuccess: (answer) => {
          setConfirming(null);
          done(answer);
          const left = blockedBy(answer, names);
          if (left.length > 0) setBlocked(left);
        },
        onError: (error) => {
          setConfirming(null);
          toastSandboxFailure('delete', error);
        },
      },
    );
  };
  const force = (ids: string[]) =>
    remove.mutate(
      { ids, force: true },
      {
        onSuccess: (answer) => {
          setBlocked(null);
          done(answer);
        },
        onError: (error) => {
          setBlocked(null);
          toastSandboxFailure('delete', error);
        },
      },
    );

  return {
    ask: (sandboxes: { uuid: string; name: string }[]) =>
      setConfirming({
        ids: sandboxes.map((s) => s.uuid),
        names: new Map(sandboxes.map((s) => [s.uuid, s.name])),
      }),
    confirming: confirming ? [...confirming.names.values()] : null,
    blocked,
    busy: remove.isPending,
    confirm,
    force,
    cancel: () => {
      setConfirming(null);
      setBlocked(null);
    },
  };
}
