/**
 * The device authorization grant (RFC 8628) in Chromium, with the built-in demo device
 * (/demo/device) as the device: it shows the user code and a QR code of
 * verification_uri_complete and polls by itself (static/device_poll.js, under the real CSP);
 * the user opens verification_uri_complete in another tab, confirms the code, signs in,
 * approves, and the device page shows the signed-in claims. axe-core finds no serious
 * violation on the new pages (/device with and without an error, the device's consent page,
 * the result page, the demo device page).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, Page } from "playwright-core";
import { axe, chromium_available, launch, overflow, PHONE, screenshots, serious } from "../helpers/chromium.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

let t: TestProvider;
let browser: Browser;

beforeAll(async () => {
  if (!chromium_available) return;
  // The demo client as `idp serve --demo` registers it; a 1-second polling interval.
  t = await start_provider({ config: { device: { interval: 1 } } });
  await t.add_client(
    {
      client_name: "Demo App",
      token_endpoint_auth_method: "none",
      redirect_uris: [`${t.issuer}/demo/callback`],
      grant_types: ["authorization_code", DEVICE_GRANT],
      response_types: ["code"],
    },
    { client_id: "demo" },
  );
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await t.stop();
});

/** axe (light and dark), no sideways scrolling at phone width, screenshots. Under a CSP bypass for axe only. */
async function check(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    expect({ page: name, scheme, problems: serious(await axe(page)) }).toEqual({ page: name, scheme, problems: [] });
  }
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
  await screenshots(page, name);
}

describe.skipIf(!chromium_available)("device flow in Chromium", () => {
  test("the demo device polls by itself under its CSP and signs in once the user approves from the QR code's URL", async () => {
    // The device: the real CSP (its own script only).
    const device = await (await browser.newContext()).newPage();
    const blocked: string[] = [];
    device.on("console", (message) => {
      if (message.type() === "error") blocked.push(message.text());
    });
    await device.goto(`${t.url}/demo/device`);
    const user_code = (await device.locator(".user-code").innerText()).trim();
    expect(user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    const qr = await device.locator("img.qr").getAttribute("alt");
    expect(qr).toBe(`QR code of ${t.issuer}/device?user_code=${user_code}`);
    // It polls: the page reloads with ?poll=1 and still waits.
    await device.waitForURL(/\/demo\/device\?poll=1$/, { timeout: 5000 });
    await device.locator(".user-code").waitFor();

    // The user, on another device, opens the QR code's URL (axe needs the CSP bypassed).
    const user = await (await browser.newContext({ bypassCSP: true, reducedMotion: "reduce" })).newPage();
    await user.goto(`${t.issuer}/device?user_code=${user_code}`);
    expect(await user.getByLabel("Code").inputValue()).toBe(user_code);
    await check(user, "device");
    await user.getByLabel("Code").fill("BBBB-BBBB");
    await user.getByRole("button", { name: "Continue" }).click();
    await user.getByRole("alert").waitFor();
    await check(user, "device-error");
    await user.getByLabel("Code").fill(user_code.toLowerCase());
    await user.getByRole("button", { name: "Continue" }).click();
    await user.waitForURL(/\/login$/);
    await user.getByLabel("Username").fill("alice");
    await user.getByLabel("Password").fill(t.password);
    await user.getByRole("button", { name: "Sign in" }).click();
    await user.waitForURL(/\/consent$/);
    expect(await user.getByRole("heading", { level: 1 }).innerText()).toContain("Demo App");
    await user.getByText("Is this the code shown on your device?").waitFor();
    await check(user, "device-consent");
    await user.getByRole("button", { name: "Yes, allow" }).click();
    await user.getByRole("heading", { name: "Device connected" }).waitFor();
    await check(user, "device-approved");

    // The device notices at its next poll.
    await device.getByRole("heading", { name: "You are signed in to the demo app" }).waitFor({ timeout: 10_000 });
    expect(await device.locator("pre.json").first().innerText()).toContain(`"sub": "${t.user.id}"`);
    expect(blocked.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    await user.context().close();
    await device.context().close();
  }, 90_000);

  test("the demo device page passes axe", async () => {
    const page = await (await browser.newContext({ bypassCSP: true, reducedMotion: "reduce" })).newPage();
    // Without its polling script: the page must not reload while axe runs.
    await page.route("**/static/device_poll.js", (route) => route.abort());
    await page.goto(`${t.url}/demo/device`);
    await check(page, "demo-device");
    await page.context().close();
  }, 60_000);
});
