/**
 * `idp webhooks` in-process against a fresh database and a real receiver: a secret given with
 * --secret-stdin signs the test delivery (verified with `standardwebhooks`), `list` never shows a
 * secret, `test` exits 1 when the receiver does not answer 2xx, bad input is refused naming why,
 * IDP_SECRET_KEY is required, and adding and removing are audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Webhook } from "standardwebhooks";
import { serve_fetch, type FetchServer } from "../helpers/serve_fetch.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

const SECRET = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;

describe("idp webhooks", () => {
  let box: Sandbox;
  let receiver: FetchServer;
  let status = 200;
  const verified: unknown[] = [];

  beforeAll(async () => {
    box = sandbox();
    Object.assign(box.env, { IDP_SECRET_KEY: Buffer.alloc(32, 5).toString("base64url"), IDP_OUTBOUND_ALLOW_HTTP: "true", IDP_OUTBOUND_ALLOW: "127.0.0.1" });
    receiver = await serve_fetch(async (request) => {
      verified.push(new Webhook(SECRET).verify(await request.text(), Object.fromEntries(request.headers)));
      return new Response("a body the provider never stores", { status });
    });
  });
  afterAll(async () => {
    await receiver.stop();
    box.cleanup();
  });

  test("add --secret-stdin, list without secrets, test delivered and signed, remove; each change audited", async () => {
    const added = await box.run(
      ["webhooks", "add", `${receiver.url}/in`, "--event", "user.created", "--event", "security.*", "--secret-stdin", "--description", "SIEM", "--json"],
      { stdin: `${SECRET}\n` },
    );
    expect(added.code).toBe(0);
    const webhook = added.json<{ id: string; secret?: string; events: string[] }>();
    expect(webhook.secret).toBeUndefined();
    expect(webhook.events).toEqual(["user.created", "security.*"]);

    const listed = await box.run(["webhooks", "list"]);
    expect(listed.stdout).toContain(webhook.id);
    expect(listed.stdout).toContain("SIEM");
    expect(listed.stdout).not.toContain(SECRET.slice(6, 20));
    expect((await box.run(["webhooks", "list", "--json"])).stdout).not.toContain("secret");

    const tested = await box.run(["webhooks", "test", webhook.id]);
    expect(tested.stderr).toBe("");
    expect(tested.code).toBe(0);
    expect(verified.at(-1)).toMatchObject({ type: "webhook.test", data: { webhook_id: webhook.id } });

    status = 503;
    const failing = await box.run(["webhooks", "test", webhook.id]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("answered 503");
    status = 200;
    const deliveries = (await box.run(["webhooks", "deliveries", "--webhook", webhook.id, "--json"])).json<{ status: string; last_error: string | null }[]>();
    expect(deliveries.map((d) => d.status)).toEqual(["queued", "sent"]);
    expect(JSON.stringify(deliveries)).not.toContain("a body the provider never stores");

    expect((await box.run(["webhooks", "remove", webhook.id])).code).toBe(0);
    expect((await box.run(["webhooks", "remove", webhook.id])).code).toBe(1);
    const types = await with_store(box, async (store) => (await store.list_audit_events({ limit: 20 })).map((e) => e.type));
    expect(types).toContain("webhook_created");
    expect(types).toContain("webhook_deleted");
  });

  test("bad input is refused naming why; without IDP_SECRET_KEY nothing is added", async () => {
    const cases: [string[], string, string?][] = [
      [["webhooks", "add", `${receiver.url}/in`], "name at least one event"],
      [["webhooks", "add", `${receiver.url}/in`, "--event", "user.exploded"], "is no webhook event"],
      [["webhooks", "add", "ftp://example.com/in", "--event", "*"], "scheme"],
      [["webhooks", "add", `${receiver.url}/in`, "--event", "*", "--secret-stdin"], "whsec_", "not-a-secret"],
    ];
    for (const [argv, words, stdin] of cases) {
      const refused = await box.run(argv, { stdin: stdin ?? "" });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(words);
    }
    const keyless = await box.run(["webhooks", "add", `${receiver.url}/in`, "--event", "*"], { env: { IDP_SECRET_KEY: "" } });
    expect(keyless.code).not.toBe(0);
    expect(keyless.stderr).toContain("IDP_SECRET_KEY");
    expect(await with_store(box, (store) => store.list_webhooks())).toEqual([]);
  });

  test("events lists the catalogue", async () => {
    const events = await box.run(["webhooks", "events"]);
    expect(events.stdout.split("\n")).toContain("user.signed_in");
    expect(events.stdout.split("\n")).toContain("security.refresh_token_reuse");
  });
});
