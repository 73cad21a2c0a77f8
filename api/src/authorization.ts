/**
 * The one authorization table: every route of the API, who may call it, and which
 * organization its target belongs to. Encodes the role matrix of spec 3 §6 and the
 * ownership rules of spec 1 §6. `authorization.test.ts` walks it.
 */
export const ROLES = ['admin', 'organization_admin', 'group_admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

export interface AccessRule {
  /**
   * public: no session needed; signed-in: any role; a list: those roles only (403 for
   * the others). Roles are the caller's role in the target organization when the rule
   * has a scope, else in their current organization.
   */
  access: 'public' | 'signed-in' | readonly Role[];
  /**
   * Where the target lives. A caller who is not a member of that organization gets
   * 404, never 403, so existence does not leak across organizations (the super admin
   * is a member of every organization).
   *  - organization: the param is an organization id
   *  - group: the param is a group id; group_admin applies only to groups they administer
   *  - user: the param is a user id, who must share the caller's current organization
   */
  scope?: { kind: 'organization' | 'group' | 'user'; param: string };
  /** Non-admins may target only themselves (user scope). */
  selfOnly?: boolean;
  /** Roles outside `access` are let in while this platform preference is true. */
  unlessPreference?: 'allow_new_organization';
  /**
   * The param names a custom resource of the caller's current organization and the caller
   * needs this of it (resources/access.ts: view/edit/use are the permissions read/write/execute,
   * own the owner-only actions). One they cannot see, or another organization's, is a 404.
   */
  object?: { kind: 'sandbox' | 'workflow'; param: string; need: 'view' | 'edit' | 'use' | 'own' };
}

const ADMINS = ['admin', 'organization_admin'] as const;
const USER_MANAGERS = ['admin', 'organization_admin', 'group_admin'] as const;
const SUPER = ['admin'] as const;

export const AUTHORIZATION: Record<string, AccessRule> = {
  'GET /healthz': { access: 'public' },
  'GET /openapi.json': { access: 'public' },

  // Spec 1 §7.1: sign-in, registration, verification, password reset.
  'POST /login': { access: 'public' },
  'GET /logout': { access: 'public' },
  'GET /refresh': { access: 'public' }, // authenticated by the refresh token itself
  'POST /password': { access: 'public' },
  'POST /password/:token': { access: 'public' },
  'PUT /password': { access: 'signed-in' },
  'GET /verify/:token': { access: 'public' },
  'POST /user': { access: 'public' },
  'GET /invite/:token': { access: 'public' },
  'GET /invite/:token/accept': { access: 'signed-in' },
  'GET /oidc/login': { access: 'public' },
  'GET /oidc/callback': { access: 'public' },

  // Spec 1 §7.1: the signed-in person.
  'GET /me': { access: 'signed-in' },
  'GET /organization': { access: 'signed-in' },
  'GET /group/name': { access: 'signed-in' },
  'POST /preferences/organization': { access: 'signed-in' },
  'PUT /preferences/user': { access: 'signed-in' },
  'GET /notifications/new': { access: 'signed-in' },
  'GET /tags': { access: 'signed-in' },
  'PUT /tags': { access: 'signed-in' },
  'GET /contact': { access: 'signed-in' },
  'PUT /contact': { access: 'signed-in' },
  'GET /user/:user/avatar': { access: 'signed-in', scope: { kind: 'user', param: 'user' } },
  'PUT /user/:user/avatar': { access: 'signed-in', scope: { kind: 'user', param: 'user' }, selfOnly: true },
  'GET /illumina/preferences': { access: 'public' },
  'GET /illumina/license': { access: 'public' },
  'GET /illumina/events': { access: 'signed-in' }, // scoped to what the caller may see
  'POST /feedback': { access: 'signed-in' },

  // Spec 3 §7: organizations.
  'GET /organizations': { access: 'signed-in' }, // the super admin sees all, others their own
  'POST /organizations': { access: SUPER, unlessPreference: 'allow_new_organization' },
  // What caps the quota sliders of whoever may create (or, the super admin, edit) organizations.
  'GET /organizations/capacity': { access: SUPER, unlessPreference: 'allow_new_organization' },
  'PUT /organizations/:id': { access: ADMINS, scope: { kind: 'organization', param: 'id' } },
  'DELETE /organizations/:id': { access: SUPER, scope: { kind: 'organization', param: 'id' } },
  'PUT /organizations/:id/admin': { access: ADMINS, scope: { kind: 'organization', param: 'id' } },
  'PUT /organizations/:id/algorithm': { access: ADMINS, scope: { kind: 'organization', param: 'id' } },
  'PUT /organizations/:id/registry': { access: ADMINS, scope: { kind: 'organization', param: 'id' } },
  'PUT /organizations/:id/mount': { access: ADMINS, scope: { kind: 'organization', param: 'id' } },
  // Role matrix: disabling a cluster for one's organization is the organization admin's alone.
  'PUT /organizations/:id/disable/:clusterId': {
    access: ['organization_admin'],
    scope: { kind: 'organization', param: 'id' },
  },
  'DELETE /organizations/:id/disable/:clusterId': {
    access: ['organization_admin'],
    scope: { kind: 'organization', param: 'id' },
  },

  // Spec 3 §7 and §6: cluster managers. Members list those their organization may use (the session
  // form's cluster preference); organization admins add private ones for their organization and
  // unlink them (services/clusters.ts); renaming, visibility and the full list are the super admin's.
  'GET /cluster': { access: 'signed-in' },
  'POST /cluster': { access: ADMINS },
  'DELETE /cluster/:id': { access: ADMINS },
  'PUT /cluster/:id/name': { access: SUPER },
  'PUT /cluster/:id': { access: SUPER },
  'GET /admin/cluster': { access: SUPER },

  // Spec 2 §7 and spec 3 §2.1, §7: statistics and billing. Every member reads them; the services
  // scope what they answer by role (administrator types the organization, others their groups or
  // their own records), and another organization's group or run is a 422 or 404.
  'GET /statistic/options': { access: 'signed-in' },
  'POST /statistic/runs': { access: 'signed-in' },
  'GET /statistic/runs/:run': { access: 'signed-in' },
  // Role matrix: the Cluster Managers dashboard section is the administrator roles'.
  'POST /statistic/clusters': { access: ADMINS },
  'GET /statistic/spike': { access: ADMINS },
  'GET /statistic/spike/free': { access: 'signed-in' },
  'GET /billing': { access: 'signed-in' },
  'GET /billing/csv': { access: 'signed-in' },

  // Spec 3 §7: groups ('group_admin: not shown' for managing groups is read as no).
  'GET /group': { access: USER_MANAGERS },
  'POST /group': { access: ADMINS },
  'PUT /group/:id': { access: ADMINS, scope: { kind: 'group', param: 'id' } },
  'DELETE /group/:id': { access: ADMINS, scope: { kind: 'group', param: 'id' } },

  // Spec 3 §7: users, quotas, invitations.
  'GET /admin/username': { access: ADMINS },
  'GET /admin/outbox': { access: SUPER },
  'GET /admin/group/users': { access: USER_MANAGERS },
  'GET /admin/users': { access: SUPER },
  'GET /admin/users/organization': { access: ADMINS },
  'PUT /user/:id/quota': { access: USER_MANAGERS, scope: { kind: 'user', param: 'id' } },
  'POST /invite': { access: ADMINS },
  'DELETE /user/:id': { access: SUPER, scope: { kind: 'user', param: 'id' } },
  'DELETE /user/:id/group/:group': { access: USER_MANAGERS, scope: { kind: 'group', param: 'group' } },
  'DELETE /user/:id/organization/:organization': {
    access: ADMINS,
    scope: { kind: 'organization', param: 'organization' },
  },
  // Spec 1 §7.2: the sandbox page's image check and builder containers. A container belongs to
  // whoever started it (the services answer 404 to anyone else), so any member may call these.
  'GET /image/:name': { access: 'signed-in' },
  'POST /image': { access: 'signed-in' },
  'POST /image/:uuid': { access: 'signed-in' },
  'DELETE /image/:uuid': { access: 'signed-in' },
  'POST /image/:container/delete': { access: 'signed-in' },
  'POST /container/:uuid/archive': { access: 'signed-in' },
  'PUT /container/:uuid/archive': { access: 'signed-in' },
  'POST /parse/variables': { access: 'signed-in' },
  'POST /terminal': { access: 'signed-in' },

  // Spec 1 §7.2 and §6: sandboxes. Lists show what the caller may see; DELETE checks ownership
  // of every sandbox of its body (services/sandboxes.ts) with the same rule.
  'GET /sandbox': { access: 'signed-in' },
  'POST /sandbox': { access: 'signed-in' },
  'DELETE /sandbox': { access: 'signed-in' },
  'GET /sandbox/:uuid': { access: 'signed-in', object: { kind: 'sandbox', param: 'uuid', need: 'view' } },
  'PUT /sandbox/:uuid': { access: 'signed-in', object: { kind: 'sandbox', param: 'uuid', need: 'edit' } },
  'POST /sandbox/:uuid/clone': {
    access: 'signed-in',
    object: { kind: 'sandbox', param: 'uuid', need: 'view' },
  },
  'PUT /sandbox/:uuid/variables': {
    access: 'signed-in',
    object: { kind: 'sandbox', param: 'uuid', need: 'own' },
  },
  'PUT /sandbox/:uuid/name': { access: 'signed-in', object: { kind: 'sandbox', param: 'uuid', need: 'own' } },
  'GET /sandbox/:uuid/avatar': {
    access: 'signed-in',
    object: { kind: 'sandbox', param: 'uuid', need: 'view' },
  },

  // Spec 2 §7 and §6: workflows. The owner edits, renames, sets variables and visibility and
  // deletes (DELETE checks every workflow of its body, services/workflows.ts); others who see one
  // view and clone it.
  'GET /workflow': { access: 'signed-in' },
  'POST /workflow': { access: 'signed-in' },
  'DELETE /workflow': { access: 'signed-in' },
  'GET /workflow/:uuid': { access: 'signed-in', object: { kind: 'workflow', param: 'uuid', need: 'view' } },
  'PUT /workflow/:uuid': { access: 'signed-in', object: { kind: 'workflow', param: 'uuid', need: 'edit' } },
  'POST /workflow/:uuid/clone': {
    access: 'signed-in',
    object: { kind: 'workflow', param: 'uuid', need: 'view' },
  },
  'PUT /workflow/:uuid/name': {
    access: 'signed-in',
    object: { kind: 'workflow', param: 'uuid', need: 'own' },
  },
  'PUT /workflow/:uuid/variables/:sandbox': {
    access: 'signed-in',
    object: { kind: 'workflow', param: 'uuid', need: 'own' },
  },
  'PUT /workflow/:uuid/visibility': {
    access: 'signed-in',
    object: { kind: 'workflow', param: 'uuid', need: 'own' },
  },

  // Spec 2 §7: sessions and runs, in group namespaces. Their members see them and start and act on
  // runs; the owner edits and deletes (services/sessions-scope.ts, services/runs.ts check each).
  'GET /session': { access: 'signed-in' },
  'GET /session/workflows': { access: 'signed-in' },
  'POST /session': { access: 'signed-in' },
  'POST /session/instance': { access: 'signed-in' },
  'POST /session/fast': { access: 'signed-in' },
  'PUT /session/:uuid': { access: 'signed-in' },
  'POST /session/:uuid/clone': { access: 'signed-in' },
  'DELETE /session': { access: 'signed-in' },
  'POST /session/:uuid/webhook': { access: 'signed-in' },
  'DELETE /session/:uuid/webhook': { access: 'signed-in' },
  'POST /hooks/session/:uuid/:secret': { access: 'public' }, // the secret is the credential
  'GET /schedule/:uuid': { access: 'signed-in' },
  'GET /event/:uuid': { access: 'signed-in' },
  'GET /schedule/:uuid/run': { access: 'signed-in' },
  'GET /event/:uuid/run': { access: 'signed-in' },
  'GET /run/:uuid': { access: 'signed-in' },
  'PUT /run/:uuid': { access: 'signed-in' },
  // What a run's sandboxes ran with, for whoever may see the run (services/run-files.ts checks it).
  'GET /run/:uuid/variables': { access: 'signed-in' },

  // Spec 2 §7: a run's files and logs, for whoever may see the run (services/run-files.ts checks it).
  'GET /file/:uuid': { access: 'signed-in' },
  'GET /file/:run/:sandboxId/:name': { access: 'signed-in' },
  'GET /file/:run/:sandboxId/:sandbox/:filename': { access: 'signed-in' },

  'GET /illumina/configuration': { access: SUPER },
  'POST /illumina/configuration': { access: SUPER },
};

/** Key of a route in the table: method and Express path. */
export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
