/**
 * Upstreams declared in the config file (`federation.upstreams`): written to the store at start,
 * replaced by name at the next start, the secret encrypted and masked by `masked()`; a bad entry
 * stops the start naming the upstream and the field, and so does a new issuer or subject claim
 * while accounts are linked under the old one.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { load_config, masked } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";
import { open_secret } from "../../src/oidc/federation/secret_box.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";

const KEY = randomBytes(32).toString("base64url");
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

function config_with(upstreams: unknown[]) {
  return load_config({}, { issuer: "http://127.0.0.1:1", database_url: "sqlite::memory:", log_requests: false, federation: { secret_key: KEY, upstreams } });
}

async function start(store: Store, upstreams: unknown[]) {
  return serve(config_with(upstreams), { store, port: 0, log: () => {}, out: () => {} });
}

describe("federation.upstreams in the config file", () => {
  test("added at start, then replaced by name; the secret is stored encrypted and masked", async () => {
    const store = await open_store("sqlite::memory:", { migrate: true });
    stores.push(store);
    const first = await start(store, [{ name: "google", preset: "google", client_id: "g-1", client_secret: "top-secret", auto_link: true }]);
    await first.stop();
    const row = (await store.get_upstream("google"))!;
    expect(row).toMatchObject({ kind: "oidc", issuer: "https://accounts.google.com", client_id: "g-1", auto_link: true, enabled: true });
    expect(open_secret(KEY, "google", row.client_secret_enc!)).toBe("top-secret");
    const second = await start(store, [{ name: "google", preset: "google", client_id: "g-2", display_name: "Google Workspace" }]);
    await second.stop();
    expect(await store.get_upstream("google")).toMatchObject({ client_id: "g-2", display_name: "Google Workspace", client_secret_enc: null });
    const shown = JSON.stringify(masked(config_with([{ name: "x", issuer: "https://x.example", client_id: "x", client_secret: "top-secret" }])));
    expect(shown).not.toContain("top-secret");
    expect(shown).not.toContain(KEY);
  });

  test("a bad entry stops the start, naming the upstream and the field", async () => {
    const store = await open_store("sqlite::memory:", { migrate: true });
    stores.push(store);
    const error = await start(store, [{ name: "corp", issuer: "not a url", client_id: "c" }]).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toContain('federation.upstreams "corp": issuer');
    expect(await store.get_upstream("corp")).toBeNull();
  });

  test("a new issuer or subject claim while accounts are linked stops the start and changes nothing; with no links it applies", async () => {
    const store = await open_store("sqlite::memory:", { migrate: true });
    stores.push(store);
    const first = await start(store, [{ name: "corp", issuer: "https://old-sso.example", client_id: "c" }]);
    await first.stop();
    const user = await store.create_user({ username: "linked", password_hash: "" });
    await store.link_identity({ upstream: "corp", subject: "42", user_id: user.id, email: null, ...identity_source((await store.get_upstream("corp"))!) });
    for (const [entry, field] of [
      [{ name: "corp", issuer: "https://new-sso.example", client_id: "c" }, "issuer"],
      [{ name: "corp", issuer: "https://old-sso.example", client_id: "c", claim_mapping: { subject: "oid" } }, "claim_mapping.subject"],
    ] as const) {
      const error = await start(store, [entry]).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toContain(`federation.upstreams "corp": its ${field} changed while 1 account is linked`);
      expect(error?.message).toContain("--drop-links");
    }
    expect((await store.get_upstream("corp"))!.issuer).toBe("https://old-sso.example");
    expect(await store.get_identity("corp", "42")).not.toBeNull();
    await store.unlink_identity(user.id, "corp", "42");
    const moved = await start(store, [{ name: "corp", issuer: "https://new-sso.example", client_id: "c" }]);
    await moved.stop();
    expect((await store.get_upstream("corp"))!.issuer).toBe("https://new-sso.example");
  });
});
