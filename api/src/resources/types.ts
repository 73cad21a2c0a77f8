import type { ObjectMeta } from '@sandflow/crds';
import type { Kind } from '@sandflow/kube';
import type { EventKind } from '../services/events.js';

/** A Sandflow custom resource as the informer holds it. */
export interface KubeObject<S = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: S;
  status?: unknown;
}

export type Visibility = 'private' | 'public' | 'group';
export interface Permission {
  read?: boolean;
  write?: boolean;
  execute?: boolean;
}

/** What authorization reads of an object, whatever its kind. */
export interface AccessSubject {
  /** User id of the owner; may name no user (objects applied with kubectl). */
  owner: string | undefined;
  /** Per group id (`_public`: every member of the organization). */
  permissions: Record<string, Permission>;
  visibility: { type: Visibility; locked: boolean };
}

/**
 * One kind of the resource layer (Sandbox now; Workflow, Session and Run next): where its
 * objects live, how authorization reads them and how a change is told in the audit log.
 */
export interface ResourceKind<O extends KubeObject> {
  kind: Kind;
  /** `Sandbox`: in messages ("Sandbox x was changed…"). */
  title: string;
  /** The audit event kind of spec 1 §3. */
  events: EventKind;
  access(object: O): AccessSubject;
  /** The name people know the object by (the id when it has none). */
  displayName(object: O): string;
  /**
   * The audit action of a change seen by the watch: create and remove are generic, an update
   * is classified by what changed (rename, variables, visibility… or update).
   */
  changeAction(before: O['spec'] | undefined, after: O['spec']): string;
}

/**
 * CR → the spec's JSON for one kind (snake_case fields, cpu in millicores, MB, `metadata.name` as
 * the id, whatever DNS-1123 name kubectl gave it); `View` is what the answer adds beside the
 * object (the caller's access, the owner's display name). The other way, each kind's service
 * builds the spec from its validated form.
 */
export interface Mapping<O extends KubeObject, View, Json> {
  toJson(object: O, view: View): Json;
}
