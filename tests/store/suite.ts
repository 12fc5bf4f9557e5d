/**
 * The storage conformance suite: every adapter must pass all of it. sqlite.test.ts and
 * postgres.test.ts call `storeSuite` with a factory of empty databases.
 *
 * One shared database serves most tests (rows carry random ids, so tests do not see each
 * other's rows); tests that need exact counts or an empty schema ask for a fresh one.
 */
import { afterAll, beforeAll, describe } from "bun:test";
import type { OpenStoreOptions, Store } from "../../src/store/types.ts";
import { clientTests } from "./suite/clients.ts";
import { codeTests } from "./suite/codes.ts";
import { keyTests } from "./suite/keys.ts";
import { lifecycleTests } from "./suite/lifecycle.ts";
import { limitTests } from "./suite/limits.ts";
import { purgeTests } from "./suite/purge.ts";
import { sessionTests } from "./suite/sessions.ts";
import { tokenTests } from "./suite/tokens.ts";
import { userTests } from "./suite/users.ts";

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

export function storeSuite(name: string, factory: StoreFactory): void {
  let target: StoreTarget | undefined;
  let shared: Store | undefined;
  let secondStore: Promise<Store> | undefined;

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
    second: () => (secondStore ??= ctx.target().open()),
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
      if (secondStore) await (await secondStore).close();
      await shared?.close();
      await target?.drop();
    });

    userTests(ctx);
    clientTests(ctx);
    sessionTests(ctx);
    codeTests(ctx);
    tokenTests(ctx);
    keyTests(ctx);
    limitTests(ctx);
    purgeTests(ctx);
    lifecycleTests(ctx);
  });
}
