/**
 * Publish before sign across instances (OIDC Core §10.1.1: a verifier that meets an unknown kid
 * fetches the JWKS again, so the key must be there), found by bench/load rotation: two instances
 * share a database and learn about rotations by polling it. When a key was rotated in twice
 * within one poll interval, the instance that polled first signed ID Tokens with a key the other
 * instance had never published, and a relying party fetching the JWKS from that other instance
 * (refetching on the unknown kid, as RP libraries do) rejected a valid ID Token.
 *
 * A key now signs only once it has been in the store for `publish_lead_seconds` (the provider
 * sets two poll intervals); until then the key active before it (retired, still published) signs.
 */
import { afterEach, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { KeyRing, type KeyRingOptions } from "../../src/oidc/keys/keyring.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";

let clock = 1_800_000_000;
const now = () => clock;
const LEAD = 10;
const server: KeyRingOptions = { algs: ["RS256"], retire_after_seconds: 3600, publish_lead_seconds: LEAD, now };
const cli: KeyRingOptions = { algs: ["RS256"], retire_after_seconds: 3600, now };
const opened: Store[] = [];
const dirs: string[] = [];

async function shared(n: number): Promise<Store[]> {
  const dir = mkdtempSync(join(tmpdir(), "idp-publish-"));
  dirs.push(dir);
  const stores = await Promise.all(Array.from({ length: n }, () => open_store(`sqlite:${join(dir, "idp.sqlite")}`)));
  opened.push(...stores);
  return stores;
}

const jwks = (ring: KeyRing) => JSON.parse(new TextDecoder().decode(ring.jwks().body)) as JSONWebKeySet;
const kid = (jwt: string) => (JSON.parse(atob(jwt.split(".")[0]!)) as { kid: string }).kid;

afterEach(async () => {
  clock = 1_800_000_000;
  for (const store of opened.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("key rotation across instances polling one database", () => {
  test("two rotations within one poll interval: every ID Token verifies against the other instance's JWKS", async () => {
    const [store_a, store_b, store_cli] = await shared(3);
    const a = await KeyRing.load(store_a!, server);
    const b = await KeyRing.load(store_b!, server);
    const admin = await KeyRing.load(store_cli!, cli);
    clock += 600; // the keys created at first start are long published

    await admin.rotate("RS256"); // the published next key signs; a new next key is stored now
    await a.refresh(); // a polls; b's last poll was before both rotations
    clock += 1;
    await admin.rotate("RS256"); // that new key, one second old, becomes active
    await a.refresh();

    const token = await a.sign({ iss: "https://op.example", aud: "rp", sub: "u1", exp: clock + 3600 });
    // The relying party gets b's JWKS (refetched on an unknown kid, or through a load balancer).
    expect(await jwtVerify(token, createLocalJWKSet(jwks(b)), { currentDate: new Date(clock * 1000) })).toBeDefined();

    // Once the key has been stored for the lead (every instance polled meanwhile), it signs.
    clock += LEAD;
    await b.refresh();
    expect(await a.refresh()).toBe(true);
    const later = await a.sign({ sub: "u2", exp: clock + 3600 });
    expect(kid(later)).toBe(admin.active_kid("RS256"));
    expect(await jwtVerify(later, createLocalJWKSet(jwks(b)), { currentDate: new Date(clock * 1000) })).toBeDefined();
  });

  test("keys stored together at first start count as one: rotating LEAD seconds later switches the signer", async () => {
    const [store] = await shared(1);
    const ring = await KeyRing.load(store!, server);
    const next = ring.list().find((key) => key.status === "next")!.kid;
    clock += LEAD; // the first active key is LEAD old, the next key (stored with it) one second less
    await ring.rotate("RS256");
    expect(ring.active_kid("RS256")).toBe(next);
  });

  test("a first key signs at once (there is no older one)", async () => {
    const [store] = await shared(1);
    const ring = await KeyRing.load(store!, server);
    const token = await ring.sign({ sub: "u1", exp: clock + 60 });
    expect(kid(token)).toBe(ring.active_kid("RS256"));
    expect((await ring.verify(token)).sub).toBe("u1");
  });
});
