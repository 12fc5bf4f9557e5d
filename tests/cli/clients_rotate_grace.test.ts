/**
 * `idp clients rotate-secret --grace 0|1h|1d`: the old secret keeps working that long (stored as
 * the previous secret's hash with its expiry), and the command says until when; anything else is
 * a usage error that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

type Added = { client_id: string; client_secret: string };
type Rotated = Added & { previous_secret_expires_at: number | null };

describe("idp clients rotate-secret --grace", () => {
  test("--grace 1h keeps the old secret for an hour and says until when; without it the old one stops", async () => {
    const added = (await box.run(["clients", "add", "--name", "Batch", "--grant-type", "client_credentials", "--json"])).json<Added>();
    const before = Math.floor(Date.now() / 1000);
    const rotated = (await box.run(["clients", "rotate-secret", added.client_id, "--grace", "1h", "--json"])).json<Rotated>();
    expect(rotated.previous_secret_expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(rotated.previous_secret_expires_at).toBeLessThanOrEqual(before + 3602);
    const row = (await with_store(box, (store) => store.get_client(added.client_id)))!;
    expect(row.previous_secret_hash).toBe(sha256(added.client_secret));
    expect(row.client_secret_hash).toBe(sha256(rotated.client_secret));

    const human = await box.run(["clients", "rotate-secret", added.client_id, "--grace", "1d"]);
    expect(human.stdout).toMatch(/the previous secret works until \d{4}-\d\d-\d\d/);
    const plain = await box.run(["clients", "rotate-secret", added.client_id]);
    expect(plain.stdout).toContain("the previous secret no longer works");
    expect((await with_store(box, (store) => store.get_client(added.client_id)))!.previous_secret_hash).toBeNull();
  });

  test("any other --grace is a usage error and changes nothing", async () => {
    const added = (await box.run(["clients", "add", "--name", "Other", "--grant-type", "client_credentials", "--json"])).json<Added>();
    const refused = await box.run(["clients", "rotate-secret", added.client_id, "--grace", "2h"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--grace must be one of 0, 1h, 1d");
    expect((await with_store(box, (store) => store.get_client(added.client_id)))!.client_secret_hash).toBe(sha256(added.client_secret));
  });
});
