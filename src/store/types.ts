/**
 * The storage interface of the provider, shared by the SQLite and PostgreSQL adapters.
 *
 * Rules every adapter keeps (and the shared suite in tests/store/suite.ts checks):
 * - Every method is async, so callers never know which database is behind it.
 * - The store never hashes or generates secrets: callers pass SHA-256 hashes of codes, tokens,
 *   client secrets and session ids (argon2id for passwords). Fields holding them end in `_hash`.
 * - Times are integer unix seconds. Inputs may omit `created_at`/`updated_at`; the store then
 *   fills in the current time. Checks against "now" (expiry, windows) take `now` explicitly.
 * - Plain getters return rows as stored, expired or revoked ones included until they are purged:
 *   the caller checks `expires_at` / `revoked_at`. The single-use operations (`consume_code`,
 *   `rotate_refresh_token`, `consume_recovery_code`, `use_jti`) check and mark in one atomic step.
 * - Failures: a unique/primary-key clash raises StoreConflictError, a missing referenced row
 *   (foreign key) raises StoreReferenceError, an unreachable database raises
 *   StoreUnavailableError (the server answers 503).
 * - Rows use snake_case field names mirroring OpenID/OAuth names, so they map to protocol JSON.
 *
 * Each storage area (users, clients, tokens, groups, …) keeps one file of its name per folder:
 * - types/<area>.ts: its rows and its part of the interface.
 * - rows/<area>.ts: its tables' column specs (codec.ts converts by them) and the builders that
 *   complete a new row with its defaults, shared by both adapters (none for limits and
 *   lifecycle, whose SQL names its columns).
 * - sqlite/<area>.ts, postgres/<area>.ts: its SQL. A few adapter files serve more than one area:
 *   sessions.ts (interactions, grants), tokens.ts (codes), keys.ts (registration), limits.ts (audit).
 * The loose files are what both adapters share beyond rows: what an operation answers
 * (single_use.ts, device_poll.ts), when two names are one (usernames.ts, group_names.ts),
 * purge.ts, default_limits.ts, clock.ts, codec.ts, guard.ts, open.ts; migrations/ is the schema.
 */

export * from "./types/common.ts";
export * from "./types/errors.ts";
export * from "./types/users.ts";
export * from "./types/user_tokens.ts";
export * from "./types/clients.ts";
export * from "./types/sessions.ts";
export * from "./types/interactions.ts";
export * from "./types/grants.ts";
export * from "./types/codes.ts";
export * from "./types/tokens.ts";
export * from "./types/keys.ts";
export * from "./types/registration.ts";
export * from "./types/limits.ts";
export * from "./types/audit.ts";
export * from "./types/lifecycle.ts";
export * from "./types/passkeys.ts";
export * from "./types/mail.ts";
export * from "./types/groups.ts";
export * from "./types/pushed_requests.ts";
export * from "./types/device_authorizations.ts";
export * from "./types/federation.ts";
export * from "./types/resource_servers.ts";
export * from "./types/saml.ts";
export * from "./types/ldap.ts";
export * from "./types/scim.ts";
export * from "./types/forward_auth.ts";
export * from "./types/attributes.ts";
export * from "./types/webhooks.ts";
export * from "./types/transfer.ts";

import type { UserStore } from "./types/users.ts";
import type { UserTokenStore } from "./types/user_tokens.ts";
import type { ClientStore } from "./types/clients.ts";
import type { SessionStore } from "./types/sessions.ts";
import type { InteractionStore } from "./types/interactions.ts";
import type { GrantStore } from "./types/grants.ts";
import type { CodeStore } from "./types/codes.ts";
import type { TokenStore } from "./types/tokens.ts";
import type { KeyStore } from "./types/keys.ts";
import type { InitialAccessTokenStore } from "./types/registration.ts";
import type { ReplayStore, CounterStore } from "./types/limits.ts";
import type { AuditStore } from "./types/audit.ts";
import type { LifecycleStore } from "./types/lifecycle.ts";
import type { PasskeyStore } from "./types/passkeys.ts";
import type { MailStore } from "./types/mail.ts";
import type { GroupStore } from "./types/groups.ts";
import type { PushedRequestStore } from "./types/pushed_requests.ts";
import type { DeviceAuthorizationStore } from "./types/device_authorizations.ts";
import type { FederationStore } from "./types/federation.ts";
import type { ResourceServerStore } from "./types/resource_servers.ts";
import type { SamlStore } from "./types/saml.ts";
import type { LdapStore } from "./types/ldap.ts";
import type { ScimStore } from "./types/scim.ts";
import type { ForwardAuthStore } from "./types/forward_auth.ts";
import type { AttributeStore } from "./types/attributes.ts";
import type { WebhookStore } from "./types/webhooks.ts";
import type { TransferStore } from "./types/transfer.ts";

/** The whole storage interface. */
export interface Store
  extends UserStore,
    UserTokenStore,
    ClientStore,
    SessionStore,
    InteractionStore,
    GrantStore,
    CodeStore,
    TokenStore,
    KeyStore,
    InitialAccessTokenStore,
    ReplayStore,
    CounterStore,
    AuditStore,
    PasskeyStore,
    MailStore,
    GroupStore,
    PushedRequestStore,
    DeviceAuthorizationStore,
    FederationStore,
    ResourceServerStore,
    SamlStore,
    LdapStore,
    ScimStore,
    ForwardAuthStore,
    AttributeStore,
    WebhookStore,
    TransferStore,
    LifecycleStore {}

/** The data methods of the store: everything but opening, migrating, purging and closing. */
export type DataStore = Omit<Store, keyof LifecycleStore>;

export type OpenStoreOptions = {
  /** Apply pending migrations at open (default true). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  max?: number;
  /** PostgreSQL: seconds to wait for a connection before StoreUnavailableError (default 5). */
  connection_timeout?: number;
  /** PostgreSQL: seconds an idle pooled connection is kept (default 30). */
  idle_timeout?: number;
  /** SQLite: milliseconds to wait on a locked database (default 5000). */
  busy_timeout?: number;
  /**
   * SQLite: run the writes of an event-loop turn only when it ends, all at once, so the write
   * lock is held for their SQL alone (sqlite/group_commit.ts). For processes that share one
   * file and write at the same time (`idp serve --workers N`). Default false.
   */
  deferred_writes?: boolean;
};
