/**
 * Long-lived SCIM tokens (`idp scim tokens`, oidc/scim/tokens.ts) through the real CLI and real
 * HTTP: made and shown once, stored hashed, listed without the token, accepted under /scim/v2
 * and audited with their name, refused 401 once revoked or expired, never good for the admin API.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";

let cli: Sandbox;
let op: TestProvider;

const get = (path: string, token: string) => fetch(`${op.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  cli = sandbox();
  op = await start_provider({ database_url: cli.env.DATABASE_URL! });
});
afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

describe("idp scim tokens", () => {
  test("add prints a 256-bit token once, stored as its SHA-256; list shows it without the token; bad input is refused", async () => {
    const added = await cli.run(["scim", "tokens", "add", "entra", "--expires-days", "30", "--json"]);
    expect(added.code).toBe(0);
    const shown = added.json<{ name: string; token: string; state: string; expires_at: number; created_at: number }>();
    expect(shown).toMatchObject({ name: "entra", state: "active" });
    expect(shown.token).toMatch(/^idp_scim_[A-Za-z0-9_-]{43}$/);
    expect(shown.expires_at - shown.created_at).toBe(30 * 86_400);
    const row = (await op.store.list_scim_tokens()).find((t) => t.name === "entra")!;
    expect(row.token_hash).toBe(sha256(shown.token));
    const listed = await cli.run(["scim", "tokens", "list"]);
    expect(listed.stdout).toContain("entra");
    expect(listed.stdout).not.toContain(shown.token);
    expect((await cli.run(["scim", "tokens", "add", "entra"])).code).not.toBe(0);
    expect((await cli.run(["scim", "tokens", "add", "bad name"])).code).not.toBe(0);
    expect((await cli.run(["scim", "tokens", "add", "x", "--expires-days", "0"])).code).not.toBe(0);
    expect((await cli.run(["scim", "tokens", "revoke", "nobody"])).code).not.toBe(0);
    const defaulted = (await cli.run(["scim", "tokens", "add", "okta", "--json"])).json<{ expires_at: number; created_at: number }>();
    expect(defaulted.expires_at - defaulted.created_at).toBe(365 * 86_400);
  });

  test("the token works under /scim/v2, audited with its name; it cannot call the admin API; revoked or expired it is 401", async () => {
    const { token } = (await cli.run(["scim", "tokens", "add", "works", "--json"])).json<{ token: string }>();
    const ok = await get("/scim/v2/Users", token);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { totalResults: number }).totalResults).toBeGreaterThan(0);
    const events = await op.store.list_audit_events({ type: "scim" });
    expect(events.some((e) => e.details?.scim_token === "works" && e.client_id === null && e.details?.status === 200)).toBe(true);

    const admin = await get("/admin/api/v1/users", token);
    expect(admin.status).toBe(401);
    expect((await get("/userinfo", token)).status).toBe(401);
    expect((await get("/scim/v2/Users", `${token}x`)).status).toBe(401);

    expect((await cli.run(["scim", "tokens", "revoke", "works"])).code).toBe(0);
    const revoked = await get("/scim/v2/Users", token);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toContain("invalid_token");
    expect(((await revoked.json()) as { detail: string }).detail).toContain("revoked");
    expect((await cli.run(["scim", "tokens", "list", "--json"])).json<{ name: string; state: string }[]>().find((t) => t.name === "works")!.state).toBe("revoked");

    const { token: short } = (await cli.run(["scim", "tokens", "add", "short", "--expires-days", "1", "--json"])).json<{ token: string }>();
    expect((await get("/scim/v2/Users", short)).status).toBe(200);
    op.clock.advance(86_400 + 1);
    const expired = await get("/scim/v2/Users", short);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { detail: string }).detail).toContain("expired");
  });
});
