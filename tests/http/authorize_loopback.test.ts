/**
 * Redirect URI matching: exact string comparison (OIDC Core §3.1.2.1), except that native apps'
 * loopback IP redirect URIs match on any port (RFC 8252 §7.3) — checked end to end with
 * openid-client, the code redeemed with the redirect URI actually used.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { drive, exchange, relying_party, start } from "./authorize_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

async function rp_for(redirect_uris: string[], application_type: "web" | "native") {
  const { client, secret } = await t.add_client({ client_name: `${application_type} app`, redirect_uris, application_type, skip_consent: true });
  return relying_party(t, client.client_id, secret!);
}

/** The answer of /authorize for `redirect_uri`: "page" (refused) or where it redirected. */
async function outcome(rp: Awaited<ReturnType<typeof rp_for>>, redirect_uri: string): Promise<"page" | string> {
  const response = await new Browser().get((await start(rp, { redirect_uri })).url.href);
  if (response.status === 400) return "page";
  return response.headers.get("location")!;
}

describe("loopback redirect URIs", () => {
  test("native loopback any port", async () => {
    const rp = await rp_for(["http://127.0.0.1/callback", "http://[::1]:8080/cb"], "native");
    for (const used of ["http://127.0.0.1:51234/callback", "http://127.0.0.1/callback", "http://[::1]:1/cb", "http://[::1]/cb"]) {
      const started = await start(rp, { redirect_uri: used });
      const { arrival } = await drive(new Browser(), started.url.href, { callback_prefix: used });
      if (arrival.mode !== "query") throw new Error("expected a redirect");
      // Sent back to exactly the URI the app used, port included.
      expect(arrival.url.href.startsWith(`${used}?`)).toBe(true);
      // openid-client redeems the code with that same URI (RFC 6749 §4.1.3).
      const { claims } = await exchange(rp, started, arrival);
      expect(claims.sub).toBe(t.user.id);
    }
  });

  test("native loopback: only the port may differ", async () => {
    const rp = await rp_for(["http://127.0.0.1/callback"], "native");
    for (const other of [
      "http://127.0.0.1:5000/other",
      "http://[::1]:5000/callback",
      "http://127.0.0.1:5000/callback/",
      "http://127.0.0.1:5000/callback?x=1",
      "http://127.0.0.2:5000/callback",
      "https://127.0.0.1:5000/callback",
      "http://127.0.0.1:99999/callback",
    ]) {
      expect({ other, result: await outcome(rp, other) }).toEqual({ other, result: "page" });
    }
  });

  test("native localhost gets no port exception (RFC 8252 §8.3)", async () => {
    const rp = await rp_for(["http://localhost/callback"], "native");
    expect(await outcome(rp, "http://localhost:5000/callback")).toBe("page");
  });

  test("web client loopback port must match", async () => {
    const rp = await rp_for(["http://127.0.0.1:8080/callback"], "web");
    expect(await outcome(rp, "http://127.0.0.1:9090/callback")).toBe("page");
    expect(await outcome(rp, "http://127.0.0.1/callback")).toBe("page");
    expect(await outcome(rp, "http://127.0.0.1:8080/callback")).toMatch(/\/interaction\/.+\/login$/);
  });
});
