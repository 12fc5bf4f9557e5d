/**
 * The console's keys page (/admin/keys): per configured algorithm (IDP_SIGNING_ALGS) the key
 * that signs now, the published next key, the next rotation (by hand: no setting rotates keys
 * on a timer) and the retired keys with when they leave the JWKS; a rotation of one algorithm
 * through its confirmation page changes that algorithm's key alone, as /.well-known/jwks.json
 * shows over HTTP; "rotate all" still rotates every algorithm. The auditor sees no rotate link.
 * Plain HTTP (tests/helpers/admin_console.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { UserRow } from "../../src/store/types.ts";
import type { Browser } from "../helpers/browser.ts";
import { alert_text, confirm, confirm_form, console_browser, console_page } from "../helpers/admin_console.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const ALGS = ["RS256", "ES256", "EdDSA"] as const;

let t: TestProvider;
let root: UserRow;
let browser: Browser;
let as_auditor: Browser;

beforeAll(async () => {
  t = await start_provider({ config: { signing_algs: [...ALGS], admin_console: { auditor_group: "auditors" } } });
  root = await t.add_user({ username: "root" });
  const auditor = await t.add_user({ username: "audrey" });
  for (const [group, user] of [
    ["admins", root],
    ["auditors", auditor],
  ] as const) {
    const row = await t.store.create_group({ name: group, description: null });
    await t.store.add_group_member(row.id, user.id, t.clock.now());
  }
  browser = await console_browser(t, root);
  as_auditor = await console_browser(t, auditor);
  // Past the publish lead (keys/options.ts): a next key stored at the start may sign once rotated.
  t.clock.advance(120);
});

afterAll(async () => {
  await t.stop();
});

/** The JWKS over HTTP: per alg, its kids in the document's order (the signing key first). */
async function jwks(): Promise<Record<string, string[]>> {
  const { keys } = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
  const out: Record<string, string[]> = {};
  for (const key of keys) (out[key.alg] ??= []).push(key.kid);
  return out;
}

function keys_of(alg: string, status: "active" | "next" | "retired"): string[] {
  return t.provider.keys
    .list()
    .filter((key) => key.alg === alg && key.status === status)
    .map((key) => key.kid);
}

/** The schedule section of one alg, tags removed. */
async function schedule_of(alg: string, as: Browser = browser): Promise<string> {
  const { html } = await console_page(as, `${t.url}/admin/keys`);
  const section = new RegExp(`<section class="alg-schedule" aria-labelledby="alg-${alg}">[\\s\\S]*?</section>`).exec(html)![0];
  return section
    .replace(/<\/?code>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("admin console: the keys page", () => {
  test("shows each configured algorithm's schedule: the key signing now, the next key, the next rotation, the retired keys", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/keys`);
    for (const alg of ALGS) {
      const [active] = keys_of(alg, "active");
      const [next] = keys_of(alg, "next");
      const text = await schedule_of(alg);
      expect(text).toMatch(
        new RegExp(`^${alg} Signs now ${active}, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC Next key ${next}, published since .+ UTC; signs after the next rotation`),
      );
      // IDP_KEY_ROTATION_DAYS (90 by default): the key activated now hands over 90 days later.
      const due = new Date((t.provider.keys.next_rotation(alg) ?? 0) * 1000).toISOString().slice(0, 16).replace("T", " ");
      expect(t.provider.keys.next_rotation(alg)).toBe(t.provider.keys.list().find((key) => key.kid === active)!.activated_at! + 90 * 86400);
      expect(text).toContain(`Next rotation ${due} UTC, automatically`);
      expect(text).toContain("Retired none");
      expect(html).toContain(`<a class="button secondary" href="${t.issuer}/admin/keys/confirm?action=rotate&amp;alg=${alg}">Rotate ${alg}</a>`);
    }
    // An alg that is not configured has no schedule.
    expect(html).not.toContain('aria-labelledby="alg-PS256"');
    // "Rotate all" stays.
    expect(html).toContain(`href="${t.issuer}/admin/keys/confirm?action=rotate"`);
  });

  test("rotating one algorithm changes its signing key alone, as the JWKS shows; its retired key is listed until it leaves", async () => {
    const before = await jwks();
    const active = Object.fromEntries(ALGS.map((alg) => [alg, keys_of(alg, "active")[0]!]));
    const next_es = keys_of("ES256", "next")[0]!;
    const url = `${t.url}/admin/keys/confirm?action=rotate&alg=ES256`;
    const { html } = await console_page(browser, url);
    expect(html).toContain('<h1 id="content" tabindex="-1">Rotate the ES256 signing key</h1>');
    expect(html).toContain("The next ES256 key starts signing now; the old one stays published until the tokens it signed expire. The keys of the other algorithms do not change.");
    expect(html).toContain(`<dt>Signing now</dt><dd><code>${active.ES256}</code></dd>`);
    expect(html).toContain(`<dt>Takes over</dt><dd><code>${next_es}</code></dd>`);
    expect(confirm_form(html)).toMatchObject({ action: `${t.issuer}/admin/keys`, fields: { alg: "ES256" } });

    const wrong = await confirm(browser, url, "not my password");
    expect(wrong.status).toBe(403);
    expect(alert_text(wrong.html)).toBe("Your password is not right: nothing was changed.");
    expect(await jwks()).toEqual(before);

    const right = await confirm(browser, url, t.password);
    expect([right.status, right.location]).toEqual([303, `${t.issuer}/admin/keys?done=key_rotated`]);
    expect((await console_page(browser, right.location!)).html).toContain("A new signing key is in use for this algorithm");
    const after = await jwks();
    // ES256: the next key signs (first in the document), a new next key is published, the old one stays.
    expect(after.ES256![0]).toBe(next_es);
    expect(after.ES256).toContain(active.ES256);
    expect(after.ES256!.length).toBe(before.ES256!.length + 1);
    // The others: not a kid changed.
    expect(after.RS256).toEqual(before.RS256);
    expect(after.EdDSA).toEqual(before.EdDSA);
    expect(keys_of("ES256", "active")).toEqual([next_es]);
    for (const alg of ["RS256", "EdDSA"]) expect(keys_of(alg, "active")).toEqual([active[alg]!]);

    const text = await schedule_of("ES256");
    expect(text).toContain(`Signs now ${next_es}, since`);
    expect(text).toMatch(new RegExp(`Retired ${active.ES256}, leaves the published keys at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));
    expect(await schedule_of("RS256")).toContain("Retired none");

    const [event] = await t.store.list_audit_events({ type: "admin_console", limit: 1 });
    expect(event!.details).toMatchObject({ actor: `user:${root.id}`, action: "keys_rotated", alg: "ES256", active: { ES256: next_es } });
  });

  test("one algorithm's confirmation does not rotate another, nor all", async () => {
    const { html } = await console_page(browser, `${t.url}/admin/keys/confirm?action=rotate&alg=EdDSA`);
    const { fields } = confirm_form(html)!;
    const before = await jwks();
    expect((await browser.post(`${t.url}/admin/keys`, { ...fields, alg: "RS256", password: t.password })).status).toBe(403);
    expect((await browser.post(`${t.url}/admin/keys`, { csrf: fields.csrf!, password: t.password })).status).toBe(403);
    expect(await jwks()).toEqual(before);
  });

  test("an algorithm that is not configured is refused on its confirmation page, with no form", async () => {
    for (const [alg, words] of [
      ["PS256", "alg: PS256 is not configured (IDP_SIGNING_ALGS=RS256,ES256,EdDSA)"],
      ["HS256", 'alg: "HS256" is not one of RS256, PS256, ES256, EdDSA'],
    ] as const) {
      const { html } = await console_page(browser, `${t.url}/admin/keys/confirm?action=rotate&alg=${alg}`, 422);
      expect(alert_text(html)).toBe(words);
      expect(confirm_form(html)).toBeNull();
    }
  });

  test("rotate all still rotates every algorithm", async () => {
    const next = Object.fromEntries(ALGS.map((alg) => [alg, keys_of(alg, "next")[0]!]));
    const done = await confirm(browser, `${t.url}/admin/keys/confirm?action=rotate`, t.password);
    expect(done.location).toBe(`${t.issuer}/admin/keys?done=keys_rotated`);
    const after = await jwks();
    for (const alg of ALGS) expect([alg, after[alg]![0]]).toEqual([alg, next[alg]]);
  });

  test("the auditor sees the schedule, with no rotate link; its confirmation and post are refused (403)", async () => {
    const { html, csrf } = await console_page(as_auditor, `${t.url}/admin/keys`);
    expect(await schedule_of("ES256", as_auditor)).toContain("Signs now");
    expect(html).not.toContain("/admin/keys/confirm?");
    await console_page(as_auditor, `${t.url}/admin/keys/confirm?action=rotate&alg=ES256`, 403);
    const before = await jwks();
    expect((await as_auditor.post(`${t.url}/admin/keys`, { csrf: csrf!, alg: "ES256", password: t.password })).status).toBe(403);
    expect(await jwks()).toEqual(before);
  });
});
