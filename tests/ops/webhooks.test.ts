/**
 * Webhooks end to end: `idp webhooks add` subscribes a receiver (a real HTTP server here), an
 * audit event queues a delivery, the worker POSTs it signed per Standard Webhooks (verified with
 * the `standardwebhooks` package, as a receiver would), retries with backoff while the receiver is
 * down (its port closed) and delivers when it is back; a delivery given up on ends `failed` and
 * `idp webhooks retry` sends it again; the outbound fence refuses private receivers unless
 * allow-listed; /metrics counts the outcomes.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { run_cli } from "../../src/cli/index.ts";
import { record_event } from "../../src/oidc/audit.ts";
import type { WebhookDeliveryRow } from "../../src/store/types.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { serve_fetch, type FetchServer } from "../helpers/serve_fetch.ts";

const SECRET_KEY = Buffer.alloc(32, 7).toString("base64url");
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const DAY = 24 * 3600;

type Received = { headers: Record<string, string>; body: string; verified: unknown };

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** A receiver that verifies each delivery with the Standard Webhooks reference library. */
function receiver(port: number, secret: string, received: Received[], status = () => 204): Promise<FetchServer> {
  return serve_fetch(
    async (request) => {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      const verified = new Webhook(secret).verify(body, headers);
      received.push({ headers, body, verified });
      return new Response(null, { status: status() });
    },
    { port },
  );
}

describe("webhooks", () => {
  let tp: TestProvider;
  let dir: string;
  const env = () => ({
    DATABASE_URL: tp.config.database_url,
    IDP_ISSUER: tp.issuer,
    IDP_SIGNING_ALGS: "RS256,ES256",
    IDP_SECRET_KEY: SECRET_KEY,
    IDP_OUTBOUND_ALLOW_HTTP: "true",
    IDP_OUTBOUND_ALLOW: "127.0.0.1",
  });
  async function cli(argv: string[], overrides: Record<string, string> = {}, stdin = "") {
    let stdout = "";
    let stderr = "";
    const code = await run_cli(argv, { stdin, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: { ...env(), ...overrides } });
    return { code, stdout, stderr };
  }
  async function add(url: string, events: string[]): Promise<{ id: string; secret: string }> {
    const added = await cli(["webhooks", "add", url, ...events.flatMap((e) => ["--event", e]), "--json"]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    return JSON.parse(added.stdout);
  }
  const deliveries = async (webhook_id: string) => tp.store.list_webhook_deliveries({ webhook_id });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "idp-webhooks-"));
    tp = await start_provider({
      database_url: `sqlite:${join(dir, "idp.sqlite")}`,
      config: { metrics_token: METRICS_TOKEN, federation: { secret_key: SECRET_KEY }, outbound: { allow_http: true, allow: ["127.0.0.1"] } },
    });
  });
  afterAll(async () => {
    await tp.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("after a receiver outage the delivery is retried with backoff and arrives signed", async () => {
    const port = await free_port();
    const { id, secret } = await add(`http://127.0.0.1:${port}/hooks`, ["user.*"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    // The receiver is down: its port is closed.
    const created = await cli(["users", "add", "webhook-bob", "--password-stdin", "--email", "bob@example.com"], {}, "a long enough password 1");
    expect(created.code).toBe(0);
    const retried = await eventually(async () => (await deliveries(id)).find((d) => d.attempts >= 2 && d.status === "queued"), "two failed attempts");
    expect(retried).toMatchObject({ event_type: "user.created", status: "queued" });
    expect(retried.last_error).not.toBeNull();
    expect(retried.last_error!.length).toBeLessThanOrEqual(200);

    // Back up: the next attempt arrives, signed.
    const received: Received[] = [];
    const server = await receiver(port, secret, received);
    try {
      const sent = await eventually(async () => (await deliveries(id)).find((d) => d.status === "sent"), "the delivery sent");
      expect(received).toHaveLength(1);
      const [arrived] = received;
      expect(arrived!.headers["webhook-id"]).toBe(sent.id);
      expect(arrived!.headers["webhook-signature"]).toMatch(/^v1,/);
      const payload = arrived!.verified as { type: string; timestamp: string; data: { user_id: string; audit_type: string; details: Record<string, unknown> } };
      expect(payload.type).toBe("user.created");
      expect(Number.isNaN(Date.parse(payload.timestamp))).toBe(false);
      const bob = await tp.store.get_user_by_username("webhook-bob");
      expect(payload.data).toMatchObject({ user_id: bob!.id, audit_type: "user_created", details: { username: "webhook-bob", via: "cli" } });
      // No secret or hash travels: not the password, not its hash, not the signing secret.
      expect(arrived!.body).not.toContain("a long enough password");
      expect(arrived!.body).not.toContain(bob!.password_hash);
      expect(arrived!.body).not.toContain(secret);
      expect(arrived!.body).not.toContain("hash");
      // A tampered body fails the receiver's verification.
      expect(() => new Webhook(secret).verify(arrived!.body.replace("webhook-bob", "webhook-eve"), arrived!.headers)).toThrow();
    } finally {
      await server.stop();
    }

    const metrics = await (await fetch(`${tp.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toMatch(/idp_webhook_deliveries_total\{outcome="sent"\} [1-9]/);
    expect(metrics).toMatch(/idp_webhook_deliveries_total\{outcome="retry"\} [1-9]/);
    expect(metrics).toContain("idp_webhook_queued ");
  });

  test("a delivery given up on ends failed; `idp webhooks retry` delivers it", async () => {
    const port = await free_port();
    const { id, secret } = await add(`http://127.0.0.1:${port}/hooks`, ["security.*"]);
    await cli(["users", "add", "webhook-carol", "--password-stdin"], {}, "a long enough password 2");
    // Not a security event: nothing queued for this subscription.
    await sleep(300);
    expect(await deliveries(id)).toEqual([]);

    // Recorded through the provider's audit (oidc/audit.ts), as the token endpoint does.
    await record_event(tp.provider, { type: "refresh_token_reuse", outcome: "failure", client_id: "test-app" });
    const first = await eventually(async () => (await deliveries(id)).find((d) => d.attempts >= 1 && d.status === "queued"), "a failed attempt");
    expect(first.event_type).toBe("security.refresh_token_reuse");
    // A day later the next failure is the last.
    tp.clock.advance(DAY + 1);
    let failed: WebhookDeliveryRow;
    try {
      failed = await eventually(async () => (await deliveries(id)).find((d) => d.status === "failed"), "the delivery failed");
    } finally {
      tp.clock.advance(-(DAY + 1));
    }
    const listed = await cli(["webhooks", "deliveries", "--webhook", id, "--status", "failed", "--json"]);
    expect(JSON.parse(listed.stdout).map((d: { id: string }) => d.id)).toEqual([failed.id]);
    expect(listed.stdout).not.toContain("payload");

    const received: Received[] = [];
    const server = await receiver(port, secret, received);
    try {
      const retried = await cli(["webhooks", "retry", failed.id]);
      expect(retried.code).toBe(0);
      await eventually(async () => ((await tp.store.get_webhook_delivery(failed.id))?.status === "sent" ? true : undefined), "the retried delivery sent");
      expect((received[0]!.verified as { type: string }).type).toBe("security.refresh_token_reuse");
      expect((await cli(["webhooks", "retry", failed.id])).stderr).toContain("only a failed delivery can be retried");
    } finally {
      await server.stop();
    }
  });

  test("the outbound fence refuses a private receiver unless IDP_OUTBOUND_ALLOW lists it", async () => {
    const refused = await cli(["webhooks", "add", "http://10.1.2.3/hooks", "--event", "*"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("refused by the outbound fence");
    expect(refused.stderr).toContain("private");
    const loopback = await cli(["webhooks", "add", "http://127.0.0.1:9/hooks", "--event", "*"], { IDP_OUTBOUND_ALLOW: "" });
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toContain("loopback");
    const allowed = await cli(["webhooks", "add", "http://10.1.2.3/hooks", "--event", "*", "--json"], { IDP_OUTBOUND_ALLOW: "10.0.0.0/8" });
    expect(allowed.code).toBe(0);
    expect(await cli(["webhooks", "remove", JSON.parse(allowed.stdout).id])).toMatchObject({ code: 0 });
  });
});
