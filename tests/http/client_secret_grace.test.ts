/**
 * A client secret's rotation with a grace period (oidc/admin/clients.ts `rotate_client_secret`):
 * through the admin API (`grace_seconds` 0, 3600 or 86400) and the console, the old secret keeps
 * authenticating the client until the grace period ends, then only the new one does; without a
 * grace period it stops at once. The console shows when each secret was made and last used (the
 * last use recorded at most once a minute) and can end the grace period early.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { ClientRow } from "../../src/store/types.ts";
import { confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { REDIRECT_URI } from "../helpers/provider.ts";
import { manage, registered } from "./register_helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const API = "/admin/api/v1";

let t: TestProvider;
let ops: { client_id: string; secret: string };

/** client_credentials at /token with client_secret_basic: the status. */
async function token_status(client_id: string, secret: string): Promise<number> {
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client_id}:${secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return answer.status;
}

/** A confidential client_credentials client and its secret. */
async function machine(): Promise<{ client: ClientRow; secret: string }> {
  const { client, secret } = await t.add_client({ client_name: "Machine", grant_types: ["client_credentials"], response_types: [] });
  return { client, secret: secret! };
}

/** An admin API token (a new one each time: the test clock moves past their lifetime). */
async function admin_token(): Promise<string> {
  const answer = await fetch(`${t.url}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${ops.client_id}:${ops.secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=admin",
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function rotate(client_id: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${await admin_token()}`, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${t.url}${API}/clients/${client_id}/rotate-secret`, { method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
  const { client, secret } = await t.add_client({ client_name: "ops", grant_types: ["client_credentials"], response_types: [], admin: true, scope: "admin" });
  ops = { client_id: client.client_id, secret: secret! };
});

afterAll(async () => {
  await t.stop();
});

describe("client secret rotation with a grace period", () => {
  test("API: with grace_seconds the old secret works until the grace ends, the new one at once", async () => {
    const { client, secret: old } = await machine();
    const answer = await rotate(client.client_id, { grace_seconds: 3600 });
    expect(answer.status).toBe(200);
    const rotated = (await answer.json()) as { client_secret: string; previous_secret_expires_at: number | null };
    expect(rotated.previous_secret_expires_at).toBe(t.clock.now() + 3600);
    expect(await token_status(client.client_id, old)).toBe(200);
    expect(await token_status(client.client_id, rotated.client_secret)).toBe(200);
    t.clock.advance(3600);
    expect(await token_status(client.client_id, old)).toBe(401);
    expect(await token_status(client.client_id, rotated.client_secret)).toBe(200);
  });

  test("API: without a grace period (0 or none) the old secret stops at once; a second rotation drops the first's old secret", async () => {
    for (const body of [undefined, { grace_seconds: 0 }]) {
      const { client, secret: old } = await machine();
      const rotated = (await (await rotate(client.client_id, body)).json()) as { client_secret: string; previous_secret_expires_at: number | null };
      expect(rotated.previous_secret_expires_at).toBeNull();
      expect(await token_status(client.client_id, old)).toBe(401);
      expect(await token_status(client.client_id, rotated.client_secret)).toBe(200);
    }
    const { client, secret: first } = await machine();
    const second = ((await (await rotate(client.client_id, { grace_seconds: 86400 })).json()) as { client_secret: string }).client_secret;
    const third = ((await (await rotate(client.client_id, { grace_seconds: 3600 })).json()) as { client_secret: string }).client_secret;
    expect(await token_status(client.client_id, first)).toBe(401);
    expect(await token_status(client.client_id, second)).toBe(200);
    expect(await token_status(client.client_id, third)).toBe(200);
  });

  test("API: any other grace period is refused (422) and the secret stays", async () => {
    const { client, secret } = await machine();
    for (const grace_seconds of [60, -1, "3600", 7200]) {
      const answer = await rotate(client.client_id, { grace_seconds });
      expect(answer.status).toBe(422);
    }
    expect(await token_status(client.client_id, secret)).toBe(200);
  });

  test("the last use of each secret is recorded, at most once a minute", async () => {
    const { client, secret: old } = await machine();
    const fresh = ((await (await rotate(client.client_id, { grace_seconds: 3600 })).json()) as { client_secret: string }).client_secret;
    const used = async () => {
      const row = (await t.store.get_client(client.client_id))!;
      return [row.client_secret_used_at, row.previous_secret_used_at];
    };
    const start = t.clock.now();
    const updated_at = (await t.store.get_client(client.client_id))!.updated_at;
    expect(await token_status(client.client_id, fresh)).toBe(200);
    expect(await used()).toEqual([start, null]);
    t.clock.advance(30);
    expect(await token_status(client.client_id, fresh)).toBe(200);
    expect(await token_status(client.client_id, old)).toBe(200);
    // The new secret was dated 30 s ago: not again; the old one now.
    expect(await used()).toEqual([start, start + 30]);
    t.clock.advance(30);
    expect(await token_status(client.client_id, fresh)).toBe(200);
    expect(await used()).toEqual([start + 60, start + 30]);
    // Dating a use is no change of the client: its ETag (updated_at) stays.
    expect((await t.store.get_client(client.client_id))!.updated_at).toBe(updated_at);
  });

  test("a client that gives up its secret through RFC 7592 and takes a new one keeps no previous secret working", async () => {
    const info = await registered(t, { client_name: "Self", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "client_secret_basic" });
    await rotate(info.client_id, { grace_seconds: 86400 });
    expect(await token_status(info.client_id, info.client_secret!)).toBe(200);
    const put = (body: Record<string, unknown>) => manage("PUT", info.registration_client_uri, info.registration_access_token, { client_id: info.client_id, ...body });
    expect(
      (await put({ client_name: "Self", redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none" })).status,
    ).toBe(200);
    const back = await put({ client_name: "Self", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "client_secret_basic" });
    expect(back.status).toBe(200);
    const fresh = ((await back.json()) as { client_secret: string }).client_secret;
    expect(await token_status(info.client_id, fresh)).toBe(200);
    expect(await token_status(info.client_id, info.client_secret!)).toBe(401);
    expect((await t.store.get_client(info.client_id))!.client_secret_created_at).toBe(t.clock.now());
  });

  test("console: a rotation with a grace period, each secret's dates, and the grace period ended early", async () => {
    const root = await t.add_user({ username: "root" });
    const admins = await t.store.create_group({ name: "admins", description: null });
    await t.store.add_group_member(admins.id, root.id, t.clock.now());
    const browser = await console_browser(t, root);
    const { client, secret: old } = await machine();

    const page = await console_page(browser, `${t.url}/admin/clients/${client.client_id}/confirm?action=rotate_secret`);
    expect(page.html).toContain('name="grace_seconds" value="86400"');
    const form = confirm_form(page.html)!;
    const rotated = await browser.post(form.action, { ...form.fields, grace_seconds: "86400", password: t.password });
    expect(rotated.status).toBe(200);
    const shown = await rotated.text();
    const fresh = /<code id="client-secret" class="secret">([^<]+)<\/code>/.exec(shown)![1]!;
    expect(shown).toContain("The previous secret keeps working until");
    expect(await token_status(client.client_id, old)).toBe(200);
    expect(await token_status(client.client_id, fresh)).toBe(200);

    // The application's page shows both secrets' dates.
    const section = (await console_page(browser, `${t.url}/admin/clients/${client.client_id}`)).html;
    expect(section).toMatch(/<dt>Client secret<\/dt><dd>made \d{4}-\d\d-\d\d \d\d:\d\d UTC, last used \d{4}-/);
    expect(section).toMatch(/<dt>Previous secret<\/dt><dd>made .*, works until \d{4}-/);
    expect(section).toContain(`/admin/clients/${client.client_id}/confirm?action=end_grace`);

    const end = await console_page(browser, `${t.url}/admin/clients/${client.client_id}/confirm?action=end_grace`);
    const end_form = confirm_form(end.html)!;
    const ended = await browser.post(end_form.action, { ...end_form.fields, password: t.password });
    expect(ended.status).toBe(303);
    expect(ended.headers.get("location")).toBe(`${t.issuer}/admin/clients/${client.client_id}?done=secret_grace_ended`);
    expect(await token_status(client.client_id, old)).toBe(401);
    expect(await token_status(client.client_id, fresh)).toBe(200);
    // Nothing left to end: the page says so, with no form.
    const again = await console_page(browser, `${t.url}/admin/clients/${client.client_id}/confirm?action=end_grace`, 409);
    expect(confirm_form(again.html)).toBeNull();
  });
});
