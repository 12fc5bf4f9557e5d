import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

type Key = { kid: string; alg: string; status: string } & Record<string, unknown>;

// One database for the file: key generation (RSA) is the slow part.
let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("idp keys", () => {
  test("list creates the configured keys (active + next per alg) and prints no key material", async () => {
    const result = await box.run(["keys", "list", "--json"]);
    expect(result.code).toBe(0);
    const keys = result.json<Key[]>();
    for (const alg of ["RS256", "ES256"]) {
      expect(
        keys
          .filter((k) => k.alg === alg)
          .map((k) => k.status)
          .sort(),
      ).toEqual(["active", "next"]);
    }
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(["activated_at", "alg", "created_at", "kid", "retire_at", "status"]);
    const human = await box.run(["keys", "list"]);
    expect(human.stdout).toMatch(/^KID\s+ALG\s+STATUS/);
    expect(human.stdout).not.toMatch(/"d"|private/);
  });

  test("rotate --alg promotes the published next key and retires the active one", async () => {
    const before = (await box.run(["keys", "list", "--json"])).json<Key[]>();
    const next = before.find((k) => k.alg === "ES256" && k.status === "next")!;
    const active = before.find((k) => k.alg === "ES256" && k.status === "active")!;
    const result = await box.run(["keys", "rotate", "--alg", "ES256", "--json"]);
    expect(result.code).toBe(0);
    const { rotated, keys } = result.json<{ rotated: Record<string, string>; keys: Key[] }>();
    expect(rotated).toEqual({ ES256: next.kid });
    expect(keys.find((k) => k.kid === active.kid)).toMatchObject({ status: "retired" });
    expect(keys.find((k) => k.kid === next.kid)).toMatchObject({ status: "active" });
    expect(keys.find((k) => k.kid === active.kid)?.retire_at).toBeNumber();
    // RS256 untouched
    expect(keys.filter((k) => k.alg === "RS256" && k.status === "active").map((k) => k.kid)).toEqual(
      before.filter((k) => k.alg === "RS256" && k.status === "active").map((k) => k.kid),
    );
  });

  test("rotate without --alg rotates every configured alg", async () => {
    const result = await box.run(["keys", "rotate"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/RS256: \S+ now signs/);
    expect(result.stdout).toMatch(/ES256: \S+ now signs/);
  });

  test("revoke KID: the active key is gone at once, the next key signs, the revocation is audited; an unknown kid fails", async () => {
    const before = (await box.run(["keys", "list", "--json"])).json<Key[]>();
    const active = before.find((k) => k.alg === "RS256" && k.status === "active")!;
    const next = before.find((k) => k.alg === "RS256" && k.status === "next")!;
    const result = await box.run(["keys", "revoke", active.kid, "--json"]);
    expect(result.code).toBe(0);
    const { active: signing, keys } = result.json<{ active: Record<string, string>; keys: Key[] }>();
    expect(signing.RS256).toBe(next.kid);
    expect(keys.map((k) => k.kid)).not.toContain(active.kid);
    expect(keys.filter((k) => k.alg === "RS256" && k.status === "next")).toHaveLength(1);
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const events = await store.list_audit_events({ type: "key_revoked", limit: 5 });
      expect(events.map((event) => event.details?.kid)).toContain(active.kid);
    } finally {
      await store.close();
    }
    const unknown = await box.run(["keys", "revoke", "no-such-kid"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no key "no-such-kid"');
  });

  test("bad or unconfigured --alg", async () => {
    const bad = await box.run(["keys", "rotate", "--alg", "HS256"]);
    expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([2, 'error: --alg "HS256" is not one of RS256, PS256, ES256, EdDSA']);
    const unconfigured = await box.run(["keys", "rotate", "--alg", "EdDSA"]);
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain("--alg EdDSA is not configured");
    expect((await box.run(["keys", "delete"])).code).toBe(2);
    expect((await box.run(["keys", "revoke"])).code).toBe(2);
  });
});

describe("idp registration-token create", () => {
  test("prints the token once and stores only its sha256", async () => {
    const result = await box.run(["registration-token", "create", "--expires-in", "3600", "--json"]);
    expect(result.code).toBe(0);
    const { token, expires_at, created_at } = result.json<{ token: string; expires_at: number; created_at: number }>();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expires_at - created_at).toBe(3600);
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      expect(await store.find_initial_access_token(sha256(token))).toMatchObject({ expires_at });
      expect(await store.find_initial_access_token(token)).toBeNull();
      const events = await store.list_audit_events({ type: "registration_token_created" });
      expect(JSON.stringify(events)).not.toContain(token);
    } finally {
      await store.close();
    }
  });

  test("--expires-in 0: the token does not expire; human output", async () => {
    const result = await box.run(["registration-token", "create", "--expires-in", "0"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/token:\s+[A-Za-z0-9_-]{43}\n/);
    expect(result.stdout).toMatch(/expires_at:\s+never/);
    expect(result.stdout).toMatch(/uses:\s+unlimited/);
    expect(result.stdout).toContain("shown only once");
  });

  test("bad --expires-in and missing sub-command", async () => {
    expect((await box.run(["registration-token", "create", "--expires-in", "soon"])).code).toBe(2);
    expect((await box.run(["registration-token", "create", "--expires-in", "-1"])).code).toBe(2);
    const missing = await box.run(["registration-token"]);
    expect([missing.code, missing.stderr.includes("missing registration-token command")]).toEqual([2, true]);
  });
});

describe("idp audit list", () => {
  test("filters by user (name or id), type, since and limit", async () => {
    await box.run(["users", "add", "dora", "--password-stdin"], { stdin: "explorer123" });
    await box.run(["users", "add", "eve", "--password-stdin"], { stdin: "explorer123" });
    const dora = (await box.run(["users", "show", "dora", "--json"])).json<{ id: string }>();
    const by_name = (await box.run(["audit", "list", "--user", "dora", "--json"])).json<{ type: string; user_id: string }[]>();
    expect(by_name.map((e) => [e.type, e.user_id])).toEqual([["user_created", dora.id]]);
    await box.run(["users", "remove", "dora"]);
    // the user is gone; her events are still found by id
    const by_id = (await box.run(["audit", "list", "--user", dora.id, "--json"])).json<{ type: string }[]>();
    expect(by_id.map((e) => e.type)).toEqual(["user_deleted", "user_created"]);

    const limited = (await box.run(["audit", "list", "--limit", "2", "--json"])).json<unknown[]>();
    expect(limited).toHaveLength(2);
    const typed = (await box.run(["audit", "list", "--type", "user_created", "--json"])).json<{ type: string }[]>();
    expect(typed.length).toBeGreaterThanOrEqual(2);
    expect(typed.every((e) => e.type === "user_created")).toBe(true);
    const future = (await box.run(["audit", "list", "--since", "2999-01-01", "--json"])).json<unknown[]>();
    expect(future).toEqual([]);
    const since_unix = (await box.run(["audit", "list", "--since", "0", "--json"])).json<unknown[]>();
    expect(since_unix.length).toBeGreaterThan(2);
    const human = await box.run(["audit", "list", "--user", "nobody-at-all"]);
    expect(human.stdout).toBe("No audit events.\n");
  });

  test("bad --since and --limit are usage errors", async () => {
    const since = await box.run(["audit", "list", "--since", "yesterday"]);
    expect([since.code, since.stderr.includes("neither unix seconds nor an ISO 8601 date")]).toEqual([2, true]);
    expect((await box.run(["audit", "list", "--limit", "-1"])).code).toBe(2);
  });
});
