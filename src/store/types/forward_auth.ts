/** Store types: Forward authentication (protected applications behind a reverse proxy). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";
import type { SessionRow } from "./sessions.ts";

/** Who may open the paths under `prefix` of an application (oidc/forward_auth/apps.ts). */
export type ProtectedAppRule = {
  /** A path prefix below the application's path ("/admin"). */
  prefix: string;
  /** Members of any of these groups; empty: any signed-in user. */
  groups: string[];
  /** A second factor in the session, on top of the application's own requirement. */
  require_2fa: boolean;
};

export type ProtectedAppRow = {
  /** The operator's name for it (`idp apps add NAME`). */
  name: string;
  /** As registered: scheme, host, optional port and path ("https://grafana.example.com"). */
  url: string;
  /** The URL's host with its port when not the scheme's default, lower case: what a request's host is compared with. */
  host: string;
  /** The URL's path: "/" or a prefix without a trailing slash ("/grafana"). */
  path: string;
  /** Members of any of these groups; empty: any signed-in user. */
  allowed_groups: string[];
  require_2fa: boolean;
  /** Per path prefix: the longest matching prefix replaces allowed_groups (oidc/forward_auth/policy.ts). */
  rules: ProtectedAppRule[];
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type NewProtectedApp = Pick<ProtectedAppRow, "name" | "url" | "host" | "path"> & Partial<Omit<ProtectedAppRow, "name" | "url" | "host" | "path">>;

export type ProtectedAppChanges = Partial<Pick<ProtectedAppRow, "url" | "host" | "path" | "allowed_groups" | "require_2fa" | "rules" | "updated_at">>;

/**
 * A forward-auth cookie: the SHA-256 of its value, bound to one browser session. `host` null (or
 * absent): the cookie on the cookie domain; else the one application host of a host-only cookie.
 */
export type NewForwardAuthToken = { id_hash: string; session_id_hash: string; host?: string | null; created_at?: UnixSeconds };

/** A one-time code for an application's callback (oidc/forward_auth/callback.ts): its SHA-256, the session, the host it opens, the URL to return to. */
export type ForwardAuthCode = { code_hash: string; session_id_hash: string; host: string; target: string; expires_at: UnixSeconds; created_at: UnixSeconds };

export interface ForwardAuthStore {
  /** Raises StoreConflictError when the name, or the host and path, are taken. */
  create_protected_app(app: NewProtectedApp): Promise<ProtectedAppRow>;
  get_protected_app(name: string): Promise<ProtectedAppRow | null>;
  /** Ordered by name. */
  list_protected_apps(): Promise<ProtectedAppRow[]>;
  /** The applications on one host (ProtectedAppRow.host), longest path first: one indexed query on the forward-auth path. */
  list_protected_apps_for_host(host: string): Promise<ProtectedAppRow[]>;
  /** Null when unknown; StoreConflictError when the new host and path are another's. */
  update_protected_app(name: string, changes: ProtectedAppChanges): Promise<ProtectedAppRow | null>;
  /** Also forgets which sessions used it. False when unknown. */
  delete_protected_app(name: string): Promise<boolean>;
  /** StoreReferenceError when the session is gone. The token goes with its session (ON DELETE CASCADE). */
  create_forward_auth_token(token: NewForwardAuthToken): Promise<void>;
  /**
   * The session a forward-auth cookie stands for, in one query; null when the cookie or its
   * session is gone (expired or not: the caller checks), or the cookie is not one for `host`
   * (null, the default: the cookie domain's; else that host's host-only cookie).
   */
  get_forward_auth_session(id_hash: string, host?: string | null): Promise<SessionRow | null>;
  /** StoreReferenceError when the session is gone; the code goes with it. Also deletes the codes expired at `code.created_at`. */
  create_forward_auth_code(code: ForwardAuthCode): Promise<void>;
  /** Takes (deletes) a code, once, atomically: the row when it was there and not expired at `now`, else null. */
  take_forward_auth_code(code_hash: string, now: UnixSeconds): Promise<ForwardAuthCode | null>;
  /** Records that a session opened an application; true the first time only (atomic). Nothing when the session or application is gone. */
  record_protected_app_access(session_id_hash: string, app_name: string, now?: UnixSeconds): Promise<boolean>;
}
