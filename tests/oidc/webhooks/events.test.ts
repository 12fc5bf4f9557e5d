/**
 * The webhook event catalogue (oidc/webhooks/events.ts): every audit type it names exists, the
 * README's list is the catalogue, wildcards match what they say, admin API and console changes
 * count by their action, refusals do not, and a refused webhook never becomes a webhook (no loop).
 * Standard Webhooks signatures: verified by the reference library; secrets of the wrong form refused.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { AUDIT_EVENT_TYPES } from "../../../src/store/types.ts";
import { event_pattern_problem, subscribed, webhook_event_catalogue, webhook_types_of, WEBHOOK_EVENT_TYPES } from "../../../src/oidc/webhooks/events.ts";
import { generate_webhook_secret, open_webhook_secret, seal_webhook_secret, webhook_key } from "../../../src/oidc/webhooks/secret.ts";
import { webhook_headers } from "../../../src/oidc/webhooks/sign.ts";

const ADMIN_ACTIONS = ["user_updated"];

describe("webhook events", () => {
  test("every audit event the catalogue names is one the provider records (or an admin action)", () => {
    for (const { sources } of webhook_event_catalogue()) {
      for (const source of sources) {
        const audit = source.replace(/ \(.*\)$/, "");
        expect([...AUDIT_EVENT_TYPES, ...ADMIN_ACTIONS]).toContain(audit);
      }
    }
  });

  test("README lists every webhook event type", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    for (const type of WEBHOOK_EVENT_TYPES) expect(readme).toContain(`| \`${type}\` |`);
  });

  test("audit events map by type and outcome; admin changes by action; refusals and refused webhooks never", () => {
    expect(webhook_types_of({ type: "login", outcome: "success", details: null })).toEqual(["user.signed_in"]);
    expect(webhook_types_of({ type: "login", outcome: "failure", details: null })).toEqual(["user.sign_in_failed"]);
    expect(webhook_types_of({ type: "admin_api", outcome: "success", details: { action: "user_created" } })).toEqual(["user.created"]);
    expect(webhook_types_of({ type: "admin_console", outcome: "success", details: { action: "user_disabled" } })).toEqual(["user.disabled"]);
    expect(webhook_types_of({ type: "admin_api", outcome: "failure", details: { action: "user_created" } })).toEqual([]);
    expect(webhook_types_of({ type: "refresh_token_reuse", outcome: "failure", details: null })).toEqual(["security.refresh_token_reuse"]);
    expect(webhook_types_of({ type: "outbound_refused", outcome: "failure", details: { purpose: "jwks_uri" } })).toEqual(["security.outbound_refused"]);
    expect(webhook_types_of({ type: "outbound_refused", outcome: "failure", details: { purpose: "webhook" } })).toEqual([]);
    expect(webhook_types_of({ type: "consent_granted", outcome: "success", details: null })).toEqual([]);
  });

  test("patterns: exact, group wildcard, everything; unknown ones refused", () => {
    expect(subscribed(["user.*"], "user.created")).toBe(true);
    expect(subscribed(["user.*"], "security.code_reuse")).toBe(false);
    expect(subscribed(["security.*"], "security.code_reuse")).toBe(true);
    expect(subscribed(["*"], "client.deleted")).toBe(true);
    expect(subscribed(["client.created"], "client.deleted")).toBe(false);
    // "user.*" is no prefix match on "users.…" or "user" alone.
    expect(subscribed(["user.*"], "users.created")).toBe(false);
    expect(event_pattern_problem("user.*")).toBeNull();
    expect(event_pattern_problem("*")).toBeNull();
    expect(event_pattern_problem("security.code_reuse")).toBeNull();
    for (const bad of ["user", "user.", "nope.*", "user.exploded", "**", "user.**", " *"]) expect(event_pattern_problem(bad)).not.toBeNull();
  });

  test("property: a pattern subscribes to a type only if it is *, the type, or the type's group", () => {
    fc.assert(
      fc.property(fc.constantFrom(...WEBHOOK_EVENT_TYPES), fc.constantFrom(...WEBHOOK_EVENT_TYPES, "*", "user.*", "security.*", "client.*"), (type, pattern) => {
        const group = type.slice(0, type.indexOf("."));
        expect(subscribed([pattern], type)).toBe(pattern === "*" || pattern === type || pattern === `${group}.*`);
      }),
    );
  });
});

describe("webhook signatures and secrets", () => {
  test("a signed body verifies with the standardwebhooks package; a tampered one does not", () => {
    const secret = generate_webhook_secret();
    const body = JSON.stringify({ type: "user.created", timestamp: new Date().toISOString(), data: { user_id: "u1" } });
    const headers = webhook_headers(secret, "msg_1", Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: "user.created" });
    expect(() => new Webhook(secret).verify(body.replace("u1", "u2"), headers)).toThrow();
    expect(() => new Webhook(generate_webhook_secret()).verify(body, headers)).toThrow();
  });

  test("secrets: whsec_ and 24 to 64 bytes of base64; sealed to their webhook's id", () => {
    expect(webhook_key(generate_webhook_secret())).toHaveLength(24);
    for (const bad of ["", "whsec_", "c2VjcmV0", `whsec_${Buffer.alloc(23).toString("base64")}`, `whsec_${Buffer.alloc(65).toString("base64")}`, "whsec_!!!!"]) {
      expect(() => webhook_key(bad)).toThrow();
    }
    const key = Buffer.alloc(32, 1).toString("base64url");
    const secret = generate_webhook_secret();
    const sealed = seal_webhook_secret(key, "wh_a", secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(open_webhook_secret(key, "wh_a", sealed)).toBe(secret);
    expect(() => open_webhook_secret(key, "wh_b", sealed)).toThrow();
    expect(() => seal_webhook_secret(undefined, "wh_a", secret)).toThrow(/IDP_SECRET_KEY/);
  });
});
