/** Builders shared by the store suite: unique ids, a user and a client, codes and tokens. */
import type { ClientRow, NewCode, NewToken, Store, UserRow } from "../../src/store/types.ts";

/** A fixed "now" so expiry tests do not depend on the clock. */
export const T0 = 1_700_000_000;

export function uid(prefix = "id"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

export async function seed_user(store: Store, username = uid("user")): Promise<UserRow> {
  return store.create_user({ username, password_hash: "$argon2id$v=19$dummy" });
}

export async function seed_client(store: Store, client_id = uid("client")): Promise<ClientRow> {
  return store.create_client({ client_id: client_id, metadata: { client_name: "Test app", redirect_uris: ["https://rp.example/cb"] } });
}

export async function seed_pair(store: Store): Promise<{ user: UserRow; client: ClientRow }> {
  return { user: await seed_user(store), client: await seed_client(store) };
}

export function code_input(user: UserRow, client: ClientRow, overrides: Partial<NewCode> = {}): NewCode {
  return {
    code_hash: uid("code"),
    client_id: client.client_id,
    user_id: user.id,
    redirect_uri: "https://rp.example/cb",
    scope: "openid profile",
    auth_time: T0,
    grant_id: uid("grant"),
    created_at: T0,
    expires_at: T0 + 60,
    ...overrides,
  };
}

export function token_input(user: UserRow | null, client: ClientRow, overrides: Partial<NewToken> = {}): NewToken {
  return {
    token_hash: uid("tok"),
    kind: "access",
    client_id: client.client_id,
    user_id: user?.id ?? null,
    scope: "openid",
    grant_id: uid("grant"),
    created_at: T0,
    expires_at: T0 + 3600,
    ...overrides,
  };
}

/** Runs `n` copies of `task` at once and returns their results in order. */
export function concurrently<T>(n: number, task: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, index) => task(index)));
}
