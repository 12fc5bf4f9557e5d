/**
 * `idp upstreams add --group-map`, `idp upstreams group-map`, the config file's `group_map`, and
 * `trust_upstream_mfa` off unless asked for: an upstream changes no local group membership and no
 * second factor counts from it until the operator says so. Bad input is refused naming the field
 * and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

const KEY = randomBytes(32).toString("base64url");
let box: Sandbox;
const env = () => ({ IDP_SECRET_KEY: KEY, IDP_ISSUER: "https://idp.example.com" });

beforeAll(async () => {
  box = sandbox();
  // A mapping names local groups that exist (an upstream never creates one).
  for (const group of ["ops", "staff", "dev"]) expect((await box.run(["groups", "add", group], { env: env() })).code).toBe(0);
});
afterAll(() => box.cleanup());

const stored = (name: string) => with_store(box, (store) => store.get_upstream(name));

describe("upstream group mapping and trust of upstream mfa", () => {
  test("add maps no group and trusts no upstream mfa by default; --group-map and --trust-upstream-mfa opt in", async () => {
    const plain = await box.run(["upstreams", "add", "gitlab", "--preset", "gitlab", "--client-id", "gl", "--json"], { env: env() });
    expect(plain.code).toBe(0);
    expect(plain.json()).toMatchObject({ group_map: {}, trust_upstream_mfa: false });
    expect(await stored("gitlab")).toMatchObject({ group_map: {}, trust_upstream_mfa: false });

    const mapped = await box.run(
      [
        "upstreams",
        "add",
        "corp",
        "--issuer",
        "https://sso.corp.example",
        "--client-id",
        "idp",
        "--group-map",
        "corp/ops=ops",
        "--group-map",
        "a=b=staff",
        "--trust-upstream-mfa",
        "--json",
      ],
      { env: env() },
    );
    expect(mapped.code).toBe(0);
    // The last "=" splits: local group names never hold one, upstream names may.
    expect(await stored("corp")).toMatchObject({ group_map: { "corp/ops": "ops", "a=b": "staff" }, trust_upstream_mfa: true });
  });

  test("group-map replaces an upstream's mapping, and none clears it", async () => {
    const set = await box.run(["upstreams", "group-map", "corp", "engineering=dev"], { env: env() });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("engineering → dev");
    expect((await stored("corp"))!.group_map).toEqual({ engineering: "dev" });
    const cleared = await box.run(["upstreams", "group-map", "corp"], { env: env() });
    expect(cleared.stdout).toContain("maps no groups");
    expect((await stored("corp"))!.group_map).toEqual({});
  });

  test("bad mappings are refused naming the field, and nothing changes", async () => {
    await box.run(["upstreams", "group-map", "corp", "keep=ops"], { env: env() });
    for (const argv of [
      ["upstreams", "group-map", "corp", "no-equals"],
      ["upstreams", "group-map", "corp", "=ops"],
      ["upstreams", "group-map", "corp", "ops="],
      ["upstreams", "group-map", "corp", `${"x".repeat(256)}=ops`],
    ]) {
      const result = await box.run(argv, { env: env() });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--group-map|group_map/);
      expect((await stored("corp"))!.group_map).toEqual({ keep: "ops" });
    }
    const added = await box.run(["upstreams", "add", "bad", "--issuer", "https://x.example", "--client-id", "a", "--group-map", "oops"], { env: env() });
    expect(added.code).toBe(1);
    expect(added.stderr).toContain("--group-map");
    expect(await stored("bad")).toBeNull();
    const missing_group = await box.run(["upstreams", "group-map", "corp", "x=nosuchgroup"], { env: env() });
    expect(missing_group.code).toBe(1);
    expect(missing_group.stderr).toContain('--group-map: no group "nosuchgroup"');
    expect((await stored("corp"))!.group_map).toEqual({ keep: "ops" });
    const unknown = await box.run(["upstreams", "group-map", "ghost", "a=b"], { env: env() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no upstream "ghost"');
  });

  test("the config file's group_map is written at start; trust_upstream_mfa stays off unless set", async () => {
    const store = await open_store("sqlite::memory:", { migrate: true });
    try {
      const config = load_config(
        {},
        {
          issuer: "http://127.0.0.1:1",
          database_url: "sqlite::memory:",
          log_requests: false,
          federation: { secret_key: KEY, upstreams: [{ name: "gl", preset: "gitlab", client_id: "g", group_map: { "my-org/admins": "admins" } }] },
        },
      );
      const server = await serve(config, { store, port: 0, log: () => {}, out: () => {} });
      await server.stop();
      expect(await store.get_upstream("gl")).toMatchObject({ group_map: { "my-org/admins": "admins" }, trust_upstream_mfa: false });
      const bad = load_config(
        {},
        {
          issuer: "http://127.0.0.1:1",
          database_url: "sqlite::memory:",
          log_requests: false,
          federation: { secret_key: KEY, upstreams: [{ name: "gl2", preset: "gitlab", client_id: "g", group_map: { "my-org/admins": "" } }] },
        },
      );
      const refused = await serve(bad, { store, port: 0, log: () => {}, out: () => {} }).then(
        async (s) => (await s.stop(), null),
        (error: Error) => error,
      );
      expect(refused?.message).toContain('federation.upstreams "gl2": group_map');
      expect(await store.get_upstream("gl2")).toBeNull();
    } finally {
      await store.close();
    }
  });
});
