/**
 * The console's webhooks (/admin/webhooks): the list in the navigation, the add form with the
 * event catalogue as checkboxes (the rules of `idp webhooks add`: the same words when they
 * refuse, nothing stored), the signing secret shown once (sealed at rest, never on a page
 * again), a subscription's page with its deliveries' states and no payloads, a test event that
 * reaches a real receiver signed (Standard Webhooks), retry of a failed delivery, removal through
 * the confirmation page (password), forms without the console's token refused, and the roles:
 * the auditor reads, the helpdesk gets 403. Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Webhook } from "standardwebhooks";
import { add_subscription } from "../../src/oidc/webhooks/subscriptions.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page, form_fields, with_fields } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { serve_fetch, type FetchServer } from "../helpers/serve_fetch.ts";

const SECRET_KEY = Buffer.alloc(32, 7).toString("base64url");
let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_auditor: Browser;
let as_helpdesk: Browser;
let receiver: FetchServer;
let secret = "";
let answer = 204;
const received: { type: string }[] = [];

beforeAll(async () => {
  t = await start_provider({
    config: {
      admin_console: { auditor_group: "auditors", helpdesk_group: "helpdesk" },
      federation: { secret_key: SECRET_KEY },
      outbound: { allow_http: true, allow: ["127.0.0.1"] },
    },
  });
  receiver = await serve_fetch(async (request) => {
    const body = await request.text();
    if (answer < 300) received.push(new Webhook(secret).verify(body, Object.fromEntries(request.headers)) as { type: string });
    return new Response(null, { status: answer });
  });
  root = await t.add_user({ username: "root" });
  const auditor = await t.add_user({ username: "audrey" });
  const helper = await t.add_user({ username: "hal" });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
    ["helpdesk", helper],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
  browser = await console_browser(t, root);
  as_auditor = await console_browser(t, auditor);
  as_helpdesk = await console_browser(t, helper);
});

afterAll(async () => {
  await t.stop();
  await receiver.stop();
});

function main(html: string): string {
  return /<main[\s\S]*<\/main>/.exec(html)![0];
}

const decode = (text: string) =>
  text
    .replace(/&#43;/g, "+")
    .replace(/&#x2F;/g, "/")
    .replace(/&#61;/g, "=")
    .replace(/&amp;/g, "&");

async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("admin console: webhooks", () => {
  test("add with the catalogue's checkboxes: the secret shown once; its page, a test event delivered signed, retry, remove with the password", async () => {
    const list = await console_page(browser, `${t.url}/admin/webhooks`);
    // In the navigation, after the LDAP service accounts.
    expect(list.html).toMatch(
      /LDAP service accounts<\/a><\/li>\s*<li><a href="[^"]*\/admin\/webhooks" aria-current="page">Webhooks<\/a><\/li>\s*<li><a href="[^"]*\/admin\/audit">/,
    );
    expect(main(list.html)).toContain("No webhook is subscribed yet.");
    // The catalogue: every event, the groups' wildcards, the types with the audit events they stand for.
    for (const value of ["*", "user.*", "security.*", "user.created", "client.deleted"]) expect(main(list.html)).toContain(`name="events" value="${value}"`);
    expect(main(list.html)).toContain("(user_created, signup (success)");

    const fields = with_fields(form_fields(list.html, "add-webhook"), { url: `${receiver.url}/in`, events: ["user.created", "client.*"], description: "Ops" });
    // Without the console's form token: refused, nothing stored.
    expect(
      (
        await browser.post(
          `${t.url}/admin/webhooks`,
          fields.filter(([name]) => name !== "csrf"),
        )
      ).status,
    ).toBe(403);
    expect(await t.store.list_webhooks()).toEqual([]);

    const added = await browser.post(`${t.url}/admin/webhooks`, fields);
    expect(added.status).toBe(201);
    expect(added.headers.get("cache-control")).toContain("no-store");
    const shown = await added.text();
    secret = decode(/<code id="webhook-secret" class="secret">([^<]*)<\/code>/.exec(shown)![1]!);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(shown).toContain("Copy the signing secret now: it is shown only this once.");
    const [webhook] = await t.store.list_webhooks();
    expect(webhook).toMatchObject({ url: `${receiver.url}/in`, events: ["user.created", "client.*"], description: "Ops" });
    expect(webhook!.secret_sealed).not.toContain(secret.slice(6));

    const listed = main((await console_page(browser, `${t.url}/admin/webhooks`)).html);
    expect(listed).toContain(`<code>${receiver.url}/in</code>`);
    expect(listed).toContain("<code>user.created, client.*</code>");
    expect(listed).not.toContain(secret.slice(6));

    // The rules' refusals, in their words; the form kept as typed.
    for (const [form, words] of [
      [{ url: `${receiver.url}/in`, events: [] as string[] }, "name at least one event"],
      [{ url: "http://192.168.1.20/in", events: ["*"] }, "is refused by the outbound fence"],
    ] as const) {
      const refused = await browser.post(`${t.url}/admin/webhooks`, with_fields(form_fields(list.html, "add-webhook"), { url: form.url, events: [...form.events] }));
      const html = await refused.text();
      expect(refused.status).toBe(422);
      expect(alert_text(html)).toContain(words);
      expect(html).toContain(`name="url" type="url" value="${form.url}"`);
    }
    expect(await t.store.list_webhooks()).toHaveLength(1);

    // Its page; a test event reaches the receiver, signed with the secret shown.
    const page_url = `${t.url}/admin/webhooks/${webhook!.id}`;
    const page = await console_page(browser, page_url);
    expect(main(page.html)).toContain("Nothing was delivered to this webhook yet.");
    expect((await browser.post(`${page_url}/test`, {})).status).toBe(403);
    const tested = await browser.post(`${page_url}/test`, form_fields(page.html, "webhook-test"));
    expect([tested.status, tested.headers.get("location")]).toEqual([303, `${t.issuer}/admin/webhooks/${webhook!.id}?done=webhook_test_queued`]);
    await eventually(async () => (received.some((r) => r.type === "webhook.test") ? true : undefined), "the test delivery");
    const [sent] = await t.store.list_webhook_deliveries({ webhook_id: webhook!.id });
    await eventually(async () => ((await t.store.get_webhook_delivery(sent!.id))?.status === "sent" ? true : undefined), "sent");
    const after = main((await console_page(browser, `${page_url}?done=webhook_test_queued`)).html);
    expect(after).toContain("A test event was queued: its delivery is below.");
    expect(after).toMatch(new RegExp(`<tr id="delivery-${sent!.id}" data-status="sent"><td class="nowrap"><code>webhook.test</code></td><td class="nowrap">sent</td><td>1</td>`));
    // No payload on the page.
    expect(after).not.toContain("a test delivery");

    // A receiver answering 500 until the delivery gives up: failed, with its last error; retry sends it again.
    answer = 500;
    await browser.post(`${page_url}/test`, form_fields(page.html, "webhook-test"));
    const failing = await eventually(
      async () => (await t.store.list_webhook_deliveries({ webhook_id: webhook!.id })).find((d) => d.attempts >= 1 && d.last_error === "answered 500"),
      "a 500",
    );
    t.clock.advance(24 * 3600 + 1);
    try {
      await eventually(async () => ((await t.store.get_webhook_delivery(failing.id))?.status === "failed" ? true : undefined), "failed");
    } finally {
      t.clock.advance(-(24 * 3600 + 1));
    }
    answer = 204;
    const failed_page = await console_page(browser, page_url);
    expect(main(failed_page.html)).toMatch(new RegExp(`<tr id="delivery-${failing.id}" data-status="failed">.*<td class="nowrap">failed</td>.*answered 500`));
    // Retry needs the form token; a delivery that is not failed is refused.
    expect((await browser.post(`${page_url}/retry`, { delivery: failing.id })).status).toBe(403);
    const not_failed = await browser.post(`${page_url}/retry`, { csrf: failed_page.csrf!, delivery: sent!.id });
    expect(not_failed.status).toBe(409);
    expect(alert_text(await not_failed.text())).toBe("Only a failed delivery can be retried.");
    const retried = await browser.post(`${page_url}/retry`, { csrf: failed_page.csrf!, delivery: failing.id });
    expect([retried.status, retried.headers.get("location")]).toEqual([303, `${t.issuer}/admin/webhooks/${webhook!.id}?done=webhook_delivery_retried`]);
    await eventually(async () => ((await t.store.get_webhook_delivery(failing.id))?.status === "sent" ? true : undefined), "the retried delivery");

    // Remove: only through the confirmation page, with the password.
    const remove_url = `${page_url}/confirm?action=remove`;
    const zone = await console_page(browser, remove_url);
    expect(zone.html).toContain("hears of no event from now on");
    expect(confirm_form(zone.html)).toMatchObject({ action: `${t.issuer}/admin/webhooks/${webhook!.id}/remove` });
    // The console's ordinary token does not remove it.
    expect((await browser.post(`${page_url}/remove`, { csrf: list.csrf!, password: t.password })).status).toBe(403);
    expect((await confirm(browser, remove_url, "not my password")).status).toBe(403);
    expect(await t.store.get_webhook(webhook!.id)).not.toBeNull();
    const removed = await confirm(browser, remove_url, t.password);
    expect([removed.status, removed.location]).toEqual([303, `${t.issuer}/admin/webhooks?done=webhook_removed`]);
    expect(await t.store.get_webhook(webhook!.id)).toBeNull();
    await console_page(browser, page_url, 404);

    // The audit log names the subscription, never its secret.
    const log = JSON.stringify(await t.store.list_audit_events({ limit: 10_000 }));
    expect(log).not.toContain(secret.slice(6));
    const actions = (await t.store.list_audit_events({ type: "admin_console", limit: 50 })).map((event) => [event.outcome, event.details?.action]);
    for (const action of ["webhook_created", "webhook_tested", "webhook_delivery_retried", "webhook_deleted"]) expect(actions).toContainEqual(["success", action]);
  });

  test("the auditor reads the list and a page without forms or links; the helpdesk gets 403", async () => {
    const { webhook } = await add_subscription(t.provider, { url: `${receiver.url}/audit`, events: ["*"] });
    const seen = await console_page(as_auditor, `${t.url}/admin/webhooks`);
    expect(main(seen.html)).toContain(`<code>${receiver.url}/audit</code>`);
    expect(main(seen.html)).not.toContain('method="post"');
    const page = await console_page(as_auditor, `${t.url}/admin/webhooks/${webhook.id}`);
    expect(main(page.html)).not.toContain('method="post"');
    expect(main(page.html)).not.toContain("/confirm?");
    await console_page(as_auditor, `${t.url}/admin/webhooks/${webhook.id}/confirm?action=remove`, 403);
    expect((await as_auditor.post(`${t.url}/admin/webhooks`, { csrf: seen.csrf!, url: `${receiver.url}/x`, events: "*" })).status).toBe(403);
    expect((await as_auditor.post(`${t.url}/admin/webhooks/${webhook.id}/test`, { csrf: seen.csrf! })).status).toBe(403);
    await console_page(as_helpdesk, `${t.url}/admin/webhooks`, 403);
    await console_page(as_helpdesk, `${t.url}/admin/webhooks/${webhook.id}`, 403);
    expect((await t.store.list_webhooks()).map((w) => w.url)).toEqual([`${receiver.url}/audit`]);
    expect(await t.store.list_webhook_deliveries({ webhook_id: webhook.id })).toEqual([]);
    await t.store.delete_webhook(webhook.id);
  });
});
