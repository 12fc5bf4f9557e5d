/**
 * Webhooks in the admin REST API (/admin/api/v1/webhooks) through real HTTP with a real admin
 * token: create (the rules of `idp webhooks add`: the secret shown once, a private receiver
 * refused), list without secrets, a test delivery that arrives signed, the deliveries with their
 * states, retry of a failed one, delete; the OpenAPI document lists them.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { basic } from "../helpers/flow.ts";
import { serve_fetch, type FetchServer } from "../helpers/serve_fetch.ts";

const API = "/admin/api/v1";
const SECRET_KEY = Buffer.alloc(32, 9).toString("base64url");
let t: TestProvider;
let token: string;
let receiver: FetchServer;
let secret = "";
let answer = 204;
const received: { type: string }[] = [];

beforeAll(async () => {
  t = await start_provider({ config: { federation: { secret_key: SECRET_KEY }, outbound: { allow_http: true, allow: ["127.0.0.1"] } } });
  receiver = await serve_fetch(async (request) => {
    const body = await request.text();
    received.push(new Webhook(secret).verify(body, Object.fromEntries(request.headers)) as { type: string });
    return new Response(null, { status: answer });
  });
  const { client, secret: client_secret } = await t.add_client({
    client_name: "Ops",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
  });
  const issued = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, client_secret!) },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }),
  });
  token = ((await issued.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await t.stop();
  await receiver.stop();
});

function call(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.url}${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe("admin API: webhooks", () => {
  test("create (secret once), list without secrets, test delivery signed, deliveries, retry, delete", async () => {
    const created = await call("POST", "/webhooks", { url: `${receiver.url}/in`, events: ["client.*", "user.created"] });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string; secret: string; events: string[] };
    expect(webhook.events).toEqual(["client.*", "user.created"]);
    secret = webhook.secret;
    expect(secret).toMatch(/^whsec_/);
    expect(created.headers.get("location")).toBe(`${API}/webhooks/${webhook.id}`);

    const listed = await (await call("GET", "/webhooks")).text();
    expect(listed).toContain(webhook.id);
    expect(listed).not.toContain(secret);
    expect(listed).not.toContain("secret_sealed");

    const tested = await call("POST", `/webhooks/${webhook.id}/test`);
    expect(tested.status).toBe(202);
    const test_delivery = (await tested.json()) as { id: string };
    await eventually(async () => (received.some((r) => r.type === "webhook.test") ? true : undefined), "the test delivery");

    // An admin API change is an event too: the user created here is delivered.
    expect((await call("POST", "/users", { username: "hook-dave", password: "a long enough password 3" })).status).toBe(201);
    await eventually(async () => (received.some((r) => r.type === "user.created") ? true : undefined), "user.created");

    // A receiver answering 500 for a day: the delivery ends failed; retry sends it again.
    answer = 500;
    const before = received.length;
    expect((await call("POST", `/webhooks/${webhook.id}/test`)).status).toBe(202);
    const failing = await eventually(
      async () => (await t.store.list_webhook_deliveries({ webhook_id: webhook.id })).find((d) => d.attempts >= 1 && d.last_error === "answered 500"),
      "a 500",
    );
    t.clock.advance(24 * 3600 + 1);
    try {
      await eventually(async () => ((await t.store.get_webhook_delivery(failing.id))?.status === "failed" ? true : undefined), "failed");
    } finally {
      t.clock.advance(-(24 * 3600 + 1));
    }
    expect(received.length).toBeGreaterThan(before);
    answer = 204;
    const deliveries = (await (await call("GET", `/webhooks/${webhook.id}/deliveries`)).json()) as { items: { id: string; status: string; payload?: unknown }[] };
    expect(deliveries.items.find((d) => d.id === failing.id)?.status).toBe("failed");
    expect(deliveries.items.find((d) => d.id === test_delivery.id)?.status).toBe("sent");
    expect(deliveries.items.every((d) => d.payload === undefined)).toBe(true);
    const retried = await call("POST", `/webhook-deliveries/${failing.id}/retry`);
    expect(retried.status).toBe(200);
    await eventually(async () => ((await t.store.get_webhook_delivery(failing.id))?.status === "sent" ? true : undefined), "the retried delivery");
    expect((await call("POST", `/webhook-deliveries/${failing.id}/retry`)).status).toBe(409);

    expect((await call("DELETE", `/webhooks/${webhook.id}`)).status).toBe(204);
    expect((await call("DELETE", `/webhooks/${webhook.id}`)).status).toBe(404);
  });

  test("bad input: 422 naming the field; a private receiver refused; nothing stored", async () => {
    const before = (await t.store.list_webhooks()).length;
    const event = await call("POST", "/webhooks", { url: `${receiver.url}/in`, events: ["user.exploded"] });
    expect(event.status).toBe(422);
    expect(((await event.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe("events");
    const private_url = await call("POST", "/webhooks", { url: "http://192.168.1.20/in", events: ["*"] });
    expect(private_url.status).toBe(422);
    expect(JSON.stringify(await private_url.json())).toContain("private");
    const weak = await call("POST", "/webhooks", { url: `${receiver.url}/in`, events: ["*"], secret: "whsec_c2hvcnQ=" });
    expect(weak.status).toBe(422);
    expect(((await weak.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe("secret");
    expect(await t.store.list_webhooks()).toHaveLength(before);
  });

  test("the OpenAPI document lists the webhook operations", async () => {
    const doc = (await (await call("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths[`${API}/webhooks`] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths[`${API}/webhooks/{id}`] ?? {})).toEqual(["delete"]);
    expect(Object.keys(doc.paths[`${API}/webhooks/{id}/deliveries`] ?? {})).toEqual(["get"]);
    expect(Object.keys(doc.paths[`${API}/webhook-deliveries/{id}/retry`] ?? {})).toEqual(["post"]);
  });
});
