/**
 * The storage conformance suite: every adapter must pass all of it. sqlite.test.ts and
 * postgres.test.ts call `store_suite` with a factory of empty databases.
 *
 * One shared database serves most tests (rows carry random ids, so tests do not see each
 * other's rows); tests that need exact counts or an empty schema ask for a fresh one.
 */
import { afterAll, beforeAll, describe } from "../helpers/test_api.ts";
import type { OpenStoreOptions, Store } from "../../src/store/types.ts";
import { client_tests } from "./suite/clients.ts";
import { code_tests } from "./suite/codes.ts";
import { key_tests } from "./suite/keys.ts";
import { lifecycle_tests } from "./suite/lifecycle.ts";
import { limit_tests } from "./suite/limits.ts";
import { purge_tests } from "./suite/purge.ts";
import { mail_tests } from "./suite/mail.ts";
import { webhook_tests } from "./suite/webhooks.ts";
import { session_tests } from "./suite/sessions.ts";
import { token_tests } from "./suite/tokens.ts";
import { revoked_grant_tests } from "./suite/revoked_grants.ts";
import { user_tests } from "./suite/users.ts";
import { group_tests } from "./suite/groups.ts";
import { federation_tests } from "./suite/federation.ts";
import { user_token_tests } from "./suite/user_tokens.ts";
import { passkey_tests } from "./suite/passkeys.ts";
import { pushed_request_tests } from "./suite/pushed_requests.ts";
import { device_authorization_tests } from "./suite/device_authorizations.ts";
import { resource_server_tests } from "./suite/resource_servers.ts";
import { saml_tests } from "./suite/saml.ts";
import { ldap_tests } from "./suite/ldap.ts";
import { attribute_tests } from "./suite/attributes.ts";
import { transfer_tests } from "./suite/transfer.ts";
import { scim_tests } from "./suite/scim.ts";
import { forward_auth_tests } from "./suite/forward_auth.ts";

/** One empty database of the adapter under test. */
export type StoreTarget = {
  /** The database URL `open_store` takes. */
  url: string;
  /** Opens a store instance on this database (several may be open at once). */
  open(options?: OpenStoreOptions): Promise<Store>;
  /** Removes the database; instances must be closed first. */
  drop(): Promise<void>;
};

export type StoreFactory = () => Promise<StoreTarget>;

export type SuiteContext = {
  /** The shared store of this suite. */
  store(): Store;
  target(): StoreTarget;
  /** A second instance on the shared database, as another server process would have. */
  second(): Promise<Store>;
  /** Runs `body` with a store on a fresh empty database, then closes and drops it. */
  withFresh<T>(body: (store: Store, target: StoreTarget) => Promise<T>): Promise<T>;
  factory: StoreFactory;
};

export function store_suite(name: string, factory: StoreFactory): void {
  let target: StoreTarget | undefined;
  let shared: Store | undefined;
  let second_store: Promise<Store> | undefined;

  const ctx: SuiteContext = {
    factory,
    store: () => {
      if (!shared) throw new Error("store not open yet");
      return shared;
    },
    target: () => {
      if (!target) throw new Error("target not created yet");
      return target;
    },
    second: () => (second_store ??= ctx.target().open()),
    async withFresh(body) {
      const fresh = await factory();
      const store = await fresh.open();
      try {
        return await body(store, fresh);
      } finally {
        await store.close();
        await fresh.drop();
      }
    },
  };

  describe(`store: ${name}`, () => {
    beforeAll(async () => {
      target = await factory();
      shared = await target.open();
    });
    afterAll(async () => {
      if (second_store) await (await second_store).close();
      await shared?.close();
      await target?.drop();
    });

    user_tests(ctx);
    user_token_tests(ctx);
    client_tests(ctx);
    session_tests(ctx);
    code_tests(ctx);
    token_tests(ctx);
    revoked_grant_tests(ctx);
    key_tests(ctx);
    limit_tests(ctx);
    purge_tests(ctx);
    mail_tests(ctx);
    webhook_tests(ctx);
    passkey_tests(ctx);
    lifecycle_tests(ctx);
    group_tests(ctx);
    federation_tests(ctx);
    pushed_request_tests(ctx);
    device_authorization_tests(ctx);
    resource_server_tests(ctx);
    saml_tests(ctx);
    ldap_tests(ctx);
    attribute_tests(ctx);
    transfer_tests(ctx);
    scim_tests(ctx);
    forward_auth_tests(ctx);
  });
}
