/**
 * `idp registration-token create|list|revoke`: initial access tokens (RFC 7591 §3) expire (24 h
 * by default, `--expires-in` with a unit, 0 = never), may be limited to N registrations
 * (`--uses`), are stored as SHA-256 only, and are listed by id, never by token or hash.
 * Registration with them over HTTP: tests/http/register_access.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

type Created = { token: string; id: string; created_at: number; expires_at: number | null; uses_left: number | null };
type Listed = { id: string; created_at: number; expires_at: number | null; uses_left: number | null; status: string };

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

async function create(...extra: string[]): Promise<Created> {
  const result = await box.run(["registration-token", "create", "--json", ...extra]);
  expect([result.code, result.stderr]).toEqual([0, ""]);
  return result.json<Created>();
}

describe("idp registration-token create", () => {
  test("expires in 24 hours by default; --expires-in takes seconds or s/m/h/d; 0 is never", async () => {
    const cases: [string[], number | null][] = [
      [[], 24 * 3600],
      [["--expires-in", "90"], 90],
      [["--expires-in", "90m"], 90 * 60],
      [["--expires-in", "24h"], 24 * 3600],
      [["--expires-in", "7d"], 7 * 86400],
      [["--expires-in", "0"], null],
    ];
    for (const [argv, lifetime] of cases) {
      const created = await create(...argv);
      expect(created.expires_at === null ? null : created.expires_at - created.created_at).toBe(lifetime);
    }
  });

  test("--uses N is stored as the uses left; no limit without it", async () => {
    expect((await create("--uses", "3")).uses_left).toBe(3);
    expect((await create()).uses_left).toBeNull();
  });

  test("stored as SHA-256 only: the row holds the hash, never the token", async () => {
    const { token, id } = await create("--uses", "1");
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const row = await store.find_initial_access_token(sha256(token));
      expect(row).toMatchObject({ id, token_hash: sha256(token), uses_left: 1 });
      expect(sha256(token)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(await store.list_initial_access_tokens())).not.toContain(token);
      expect(await store.find_initial_access_token(token)).toBeNull();
    } finally {
      await store.close();
    }
  });

  test("bad values are usage errors (exit 2)", async () => {
    for (const argv of [
      ["--expires-in", "soon"],
      ["--expires-in", "-1"],
      ["--expires-in", "2w"],
      ["--expires-in", "4000d"],
      ["--uses", "0"],
      ["--uses", "many"],
    ]) {
      const result = await box.run(["registration-token", "create", ...argv]);
      expect([argv, result.code]).toEqual([argv, 2]);
    }
  });
});

describe("idp registration-token list and revoke", () => {
  test("list shows id, created, expires, uses left and status; never the token or its hash", async () => {
    const limited = await create("--uses", "2", "--expires-in", "1h");
    const forever = await create("--expires-in", "0");
    const listed = (await box.run(["registration-token", "list", "--json"])).json<Listed[]>();
    expect(listed.find((row) => row.id === limited.id)).toEqual({ id: limited.id, created_at: limited.created_at, expires_at: limited.expires_at, uses_left: 2, status: "active" });
    expect(listed.find((row) => row.id === forever.id)).toEqual({ id: forever.id, created_at: forever.created_at, expires_at: null, uses_left: null, status: "active" });
    const human = await box.run(["registration-token", "list"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ID\s+CREATED\s+EXPIRES\s+USES LEFT\s+STATUS\n/);
    expect(human.stdout).toMatch(new RegExp(`${limited.id}\\s+\\S+Z\\s+\\S+Z\\s+2\\s+active`));
    expect(human.stdout).toMatch(new RegExp(`${forever.id}\\s+\\S+Z\\s+never\\s+unlimited\\s+active`));
    for (const output of [human.stdout, JSON.stringify(listed)]) {
      for (const { token } of [limited, forever]) {
        expect(output).not.toContain(token);
        expect(output).not.toContain(sha256(token));
      }
    }
  });

  test("revoke ID deletes that token only and records it; an unknown id is exit 1", async () => {
    const a = await create();
    const b = await create();
    const revoked = await box.run(["registration-token", "revoke", a.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked registration token ${a.id}`);
    const ids = (await box.run(["registration-token", "list", "--json"])).json<Listed[]>().map((row) => row.id);
    expect(ids).not.toContain(a.id);
    expect(ids).toContain(b.id);
    const again = await box.run(["registration-token", "revoke", a.id]);
    expect([again.code, again.stderr]).toEqual([1, `error: no registration token with id "${a.id}" (see \`idp registration-token list\`)\n`]);
    expect((await box.run(["registration-token", "revoke"])).code).toBe(2);
    const store = await open_store(box.env.DATABASE_URL!);
    try {
      const events = await store.list_audit_events({ type: "registration_token_revoked" });
      expect(events.map((event) => event.details?.id)).toEqual([a.id]);
    } finally {
      await store.close();
    }
  });
});
