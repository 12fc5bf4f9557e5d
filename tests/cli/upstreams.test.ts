/**
 * `idp upstreams ...`: add (flags, presets), list, show, disable/enable, remove. The client secret
 * is read from stdin, stored encrypted under IDP_SECRET_KEY and never printed; bad input is
 * refused naming the field and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";
import { open_secret } from "../../src/oidc/federation/secret_box.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

const KEY = randomBytes(32).toString("base64url");
const SECRET = "upstream-secret-" + randomBytes(8).toString("hex");
let box: Sandbox;
const env = () => ({ IDP_SECRET_KEY: KEY, IDP_ISSUER: "https://idp.example.com" });

beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

const stored = (name: string) => with_store(box, (store) => store.get_upstream(name));

describe("idp upstreams", () => {
  test("add an OpenID Connect upstream: prints the redirect URI, stores the secret encrypted, never prints it", async () => {
    const added = await box.run(
      [
        "upstreams",
        "add",
        "corp",
        "--issuer",
        "https://sso.corp.example",
        "--client-id",
        "idp",
        "--client-secret-stdin",
        "--display-name",
        "Company SSO",
        "--auto-link",
        "--claim",
        "groups=roles",
        "--json",
      ],
      { stdin: `${SECRET}\n`, env: env() },
    );
    expect(added.code).toBe(0);
    expect(added.json()).toMatchObject({
      name: "corp",
      kind: "oidc",
      display_name: "Company SSO",
      auto_link: true,
      redirect_uri: "https://idp.example.com/federation/corp/callback",
      client_secret: "(encrypted)",
    });
    expect(added.stdout).not.toContain(SECRET);
    const row = (await stored("corp"))!;
    expect(row.client_secret_enc).not.toContain(SECRET);
    expect(open_secret(KEY, "corp", row.client_secret_enc!)).toBe(SECRET);
    expect(row.claim_mapping).toMatchObject({ groups: "roles", email: "email" });

    const text = await box.run(["upstreams", "add", "corp2", "--issuer", "https://sso.corp.example", "--client-id", "idp"], { env: env() });
    expect(text.stdout).toContain("Register this redirect URI at the upstream: https://idp.example.com/federation/corp2/callback");

    const listed = await box.run(["upstreams", "list"], { env: env() });
    expect(listed.stdout).toContain("corp");
    expect(listed.stdout).not.toContain(SECRET);
    const shown = await box.run(["upstreams", "show", "corp"], { env: env() });
    expect(shown.stdout).toContain("redirect_uri: https://idp.example.com/federation/corp/callback");
    expect(shown.stdout).not.toContain(SECRET);
  });

  test("presets: GitHub is OAuth 2.0 with its endpoints; Microsoft needs --tenant", async () => {
    const github = await box.run(["upstreams", "add", "github", "--preset", "github", "--client-id", "gh", "--client-secret-stdin", "--json"], { stdin: "s\n", env: env() });
    expect(github.code).toBe(0);
    expect(github.json()).toMatchObject({ kind: "oauth2", token_endpoint: "https://github.com/login/oauth/access_token", userinfo_endpoint: "https://api.github.com/user" });
    const missing = await box.run(["upstreams", "add", "entra", "--preset", "microsoft", "--client-id", "m"], { env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--tenant");
    const entra = await box.run(["upstreams", "add", "entra", "--preset", "microsoft", "--tenant", "contoso.onmicrosoft.com", "--client-id", "m", "--json"], { env: env() });
    expect(entra.json()).toMatchObject({ issuer: "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0" });
  });

  test("--auth private_key_jwt (no secret), --trust-upstream-mfa and --mfa-acr; a secret or another method is refused", async () => {
    const keyed = await box.run(
      [
        "upstreams",
        "add",
        "keyed",
        "--issuer",
        "https://sso.corp.example",
        "--client-id",
        "idp",
        "--auth",
        "private_key_jwt",
        "--trust-upstream-mfa",
        "--mfa-acr",
        "urn:corp:mfa",
        "--json",
      ],
      { env: env() },
    );
    expect(keyed.code).toBe(0);
    expect(keyed.json()).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", client_secret: null, trust_upstream_mfa: true, mfa_acr_values: ["urn:corp:mfa"] });
    const plain = await box.run(["upstreams", "add", "plain", "--issuer", "https://sso.corp.example", "--client-id", "idp", "--json"], { env: env() });
    expect(plain.json()).toMatchObject({ token_endpoint_auth_method: null, trust_upstream_mfa: false, mfa_acr_values: [] });
    const with_secret = await box.run(["upstreams", "add", "keyed2", "--issuer", "https://x.example", "--client-id", "a", "--auth", "private_key_jwt", "--client-secret-stdin"], {
      stdin: "s\n",
      env: env(),
    });
    expect([with_secret.code, with_secret.stderr.includes("client_secret: is not used with private_key_jwt")]).toEqual([1, true]);
    const other = await box.run(["upstreams", "add", "keyed3", "--issuer", "https://x.example", "--client-id", "a", "--auth", "client_secret_jwt"], { env: env() });
    expect([other.code, other.stderr.includes("token_endpoint_auth_method")]).toEqual([1, true]);
    expect(await stored("keyed2")).toBeNull();
    expect(await stored("keyed3")).toBeNull();
  });

  test("bad input is refused naming the field, and nothing is stored", async () => {
    const cases: [string[], string][] = [
      [["upstreams", "add", "Bad Name", "--issuer", "https://x.example", "--client-id", "a"], "name"],
      [["upstreams", "add", "noissuer", "--client-id", "a"], "issuer"],
      [["upstreams", "add", "badurl", "--issuer", "not a url", "--client-id", "a"], "issuer"],
      [["upstreams", "add", "oauth", "--kind", "oauth2", "--client-id", "a"], "authorization_endpoint"],
      [["upstreams", "add", "badclaim", "--issuer", "https://x.example", "--client-id", "a", "--claim", "shoe=size"], "claim_mapping"],
      [["upstreams", "add", "noopenid", "--issuer", "https://x.example", "--client-id", "a", "--scope", "email"], "scopes"],
      [["upstreams", "add", "nocid", "--issuer", "https://x.example"], "--client-id"],
    ];
    for (const [argv, field] of cases) {
      const result = await box.run(argv, { env: env() });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(field);
      expect(await stored(argv[2]!)).toBeNull();
    }
    // Without IDP_SECRET_KEY a secret is refused, not stored in the clear.
    const nokey = await box.run(["upstreams", "add", "nokey", "--issuer", "https://x.example", "--client-id", "a", "--client-secret-stdin"], { stdin: "s\n" });
    expect(nokey.code).toBe(1);
    expect(nokey.stderr).toContain("IDP_SECRET_KEY");
    expect(await stored("nokey")).toBeNull();
    const taken = await box.run(["upstreams", "add", "corp", "--issuer", "https://x.example", "--client-id", "a"], { env: env() });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("exists already");
  });

  test("update: a new issuer or subject claim while accounts are linked is refused and changes nothing; --drop-links makes it, deletes the links, audits how many", async () => {
    expect((await box.run(["upstreams", "add", "moving", "--issuer", "https://old-sso.example", "--client-id", "idp"], { env: env() })).code).toBe(0);
    await with_store(box, async (store) => {
      const source = identity_source((await store.get_upstream("moving"))!);
      for (const subject of ["s-1", "s-2"]) {
        const user = await store.create_user({ username: `moving-${subject}`, password_hash: "" });
        await store.link_identity({ upstream: "moving", subject, user_id: user.id, email: null, ...source });
      }
    });
    for (const [argv, field] of [
      [["--issuer", "https://new-sso.example"], "issuer"],
      [["--claim", "subject=oid"], "claim_mapping.subject"],
    ] as const) {
      const refused = await box.run(["upstreams", "update", "moving", ...argv], { env: env() });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(field);
      expect(refused.stderr).toContain("2 accounts are linked");
      expect(refused.stderr).toContain("--drop-links");
    }
    expect((await stored("moving"))!.issuer).toBe("https://old-sso.example");
    expect((await stored("moving"))!.claim_mapping.subject).toBe("sub");
    // A change that keeps the subjects' source needs nothing dropped.
    const renamed = await box.run(["upstreams", "update", "moving", "--display-name", "Moving SSO", "--json"], { env: env() });
    expect(renamed.code).toBe(0);
    expect(renamed.json()).toMatchObject({ display_name: "Moving SSO", issuer: "https://old-sso.example" });

    const moved = await box.run(["upstreams", "update", "moving", "--issuer", "https://new-sso.example", "--drop-links"], { env: env() });
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain("Dropped 2 linked accounts");
    expect((await stored("moving"))!.issuer).toBe("https://new-sso.example");
    await with_store(box, async (store) => {
      expect(await store.get_identity("moving", "s-1")).toBeNull();
      expect(await store.get_identity("moving", "s-2")).toBeNull();
      const [event] = await store.list_audit_events({ type: "upstream_updated", limit: 1 });
      expect(event?.details).toMatchObject({ upstream: "moving", changed: ["issuer"], links_dropped: 2 });
    });
    const nothing = await box.run(["upstreams", "update", "moving"], { env: env() });
    expect([nothing.code, nothing.stderr.includes("nothing to change")]).toEqual([1, true]);
  });

  test("disable, enable, remove", async () => {
    expect((await box.run(["upstreams", "disable", "corp2"], { env: env() })).stdout).toContain("Disabled upstream corp2");
    expect((await stored("corp2"))!.enabled).toBe(false);
    expect((await box.run(["upstreams", "enable", "corp2"], { env: env() })).code).toBe(0);
    expect((await stored("corp2"))!.enabled).toBe(true);
    expect((await box.run(["upstreams", "remove", "corp2"], { env: env() })).stdout).toContain("Removed upstream corp2");
    expect(await stored("corp2")).toBeNull();
    const again = await box.run(["upstreams", "remove", "corp2"], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no upstream "corp2"');
  });
});
