/**
 * GET /demo/device (development mode only): the demo application acting as a device without a
 * browser (RFC 8628), to try the device flow from one screen. It asks /device_authorization for a
 * code, as a TV would, and shows what a TV shows: the user code, the verification URI, and a QR
 * code of verification_uri_complete (§3.3.1) to open /device on a phone. Then it polls /token at
 * the interval (static/device_poll.js reloads `?poll=1`; a "Check now" link without script) and
 * shows the ID Token's claims once the user approved, or the error (access_denied,
 * expired_token). The device's state (its device_code) is kept in a cookie of its own, as a
 * device keeps it in memory. The provider's endpoints are called in-process (`backchannel`).
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { Fw } from "../../../fw/index.ts";
import { cookie_name } from "../../../oidc/browser/cookies.ts";
import { DEMO_CLIENT_ID, DEMO_PATHS } from "../../../oidc/ops/demo.ts";
import { DEVICE_CODE_GRANT } from "../../../oidc/authorize/device.ts";
import { PageError } from "../../../oidc/errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { layout_values } from "../../pages/layout.ts";
import { qr_data_url } from "../../pages/qr.ts";
import type { Backchannel } from "./callback.ts";
import { demo_cookie_options } from "./start.ts";

/** What the demo device remembers between polls. */
type DeviceState = { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; interval: number };

function device_cookie_name(idp: Provider): string {
  return cookie_name(idp, "idp_demo_device");
}

function decode_state(cookie: string | null): DeviceState | null {
  if (cookie === null || cookie.length > 2048) return null;
  try {
    const value = JSON.parse(Buffer.from(cookie, "base64url").toString("utf8")) as Partial<DeviceState>;
    const ok =
      [value.device_code, value.user_code, value.verification_uri, value.verification_uri_complete].every((v) => typeof v === "string") && typeof value.interval === "number";
    return ok ? (value as DeviceState) : null;
  } catch {
    return null;
  }
}

type Json = Record<string, unknown>;

export const DemoDevice = (idp: Provider, backchannel: Backchannel) =>
  class DemoDevice extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Html)) {
    static route = `GET ${DEMO_PATHS.start}/device`;

    async call() {
      const client = await idp.store.get_client(DEMO_CLIENT_ID);
      if (client === null || !(client.metadata.grant_types ?? []).includes(DEVICE_CODE_GRANT)) {
        throw new PageError(
          "The device demo is not set up",
          `Start the provider in development mode on an empty database with \`npm start\` (idp serve --demo): its demo application is registered for the device grant. Or add the grant to a client of yours: --grant-type ${DEVICE_CODE_GRANT}.`,
          "invalid_client",
          true,
        );
      }
      const saved = this.params.poll === "1" ? decode_state(this.cookies.get(device_cookie_name(idp))) : null;
      if (saved === null) return this.start();
      return this.poll(saved);
    }

    async post(path: string, form: Record<string, string>): Promise<{ ok: boolean; status: number; body: Json }> {
      const answer = await backchannel(
        new Request(`${idp.config.issuer}${path}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: new URLSearchParams(form),
        }),
      );
      return { ok: answer.ok, status: answer.status, body: (await answer.json()) as Json };
    }

    /** RFC 8628 §3.1: a new device authorization, shown as a device shows it. */
    async start() {
      const { ok, status, body } = await this.post(PATHS.device_authorization, { client_id: DEMO_CLIENT_ID, scope: "openid profile email" });
      if (!ok) return this.result({ error: String(body.error ?? "error"), description: String(body.error_description ?? `/device_authorization answered ${status}`) });
      const state: DeviceState = {
        device_code: String(body.device_code),
        user_code: String(body.user_code),
        verification_uri: String(body.verification_uri),
        verification_uri_complete: String(body.verification_uri_complete),
        interval: Number(body.interval),
      };
      this.set_cookie(device_cookie_name(idp), Buffer.from(JSON.stringify(state), "utf8").toString("base64url"), demo_cookie_options(idp, Number(body.expires_in)));
      return this.waiting(state);
    }

    /** RFC 8628 §3.4, §3.5: one poll of /token. */
    async poll(saved: DeviceState) {
      const { ok, body } = await this.post(PATHS.token, { grant_type: DEVICE_CODE_GRANT, device_code: saved.device_code, client_id: DEMO_CLIENT_ID });
      if (!ok && (body.error === "authorization_pending" || body.error === "slow_down")) {
        // slow_down: wait 5 seconds more from now on (§3.5).
        const state = body.error === "slow_down" ? { ...saved, interval: saved.interval + 5 } : saved;
        if (state !== saved)
          this.set_cookie(device_cookie_name(idp), Buffer.from(JSON.stringify(state), "utf8").toString("base64url"), demo_cookie_options(idp, idp.config.device.code_ttl));
        return this.waiting(state);
      }
      // The device's answer is final either way: forget the device code.
      this.set_cookie(device_cookie_name(idp), "", demo_cookie_options(idp, 0));
      if (!ok || typeof body.id_token !== "string") return this.result({ error: String(body.error ?? "error"), description: String(body.error_description ?? "") });
      const issuer = idp.config.issuer;
      const jwks = (await (await backchannel(new Request(`${issuer}${PATHS.jwks}`))).json()) as JSONWebKeySet;
      try {
        const { payload } = await jwtVerify(body.id_token, createLocalJWKSet(jwks), { issuer, audience: DEMO_CLIENT_ID });
        return this.result(null, payload as Json);
      } catch (error) {
        return this.result({ error: "invalid_id_token", description: (error as Error).message });
      }
    }

    waiting(state: DeviceState) {
      // Our own script (static/device_poll.js) reloads the page at the interval.
      set_page_headers(this.response.headers, null, true);
      this.response.headers.set("cache-control", "no-store");
      const issuer = idp.config.issuer;
      return this.view("demo_device", {
        ...layout_values(idp, "Demo device"),
        scripts: [`${issuer}/static/device_poll.js`],
        user_code: state.user_code,
        verification_uri: state.verification_uri,
        verification_uri_complete: state.verification_uri_complete,
        qr: qr_data_url(state.verification_uri_complete),
        poll_url: `${issuer}${DEMO_PATHS.start}/device?poll=1`,
        interval: state.interval,
      });
    }

    result(error: { error: string; description: string } | null, claims: Json | null = null) {
      this.response.headers.set("cache-control", "no-store");
      const issuer = idp.config.issuer;
      return this.view("demo_callback", {
        ...layout_values(idp, error ? "Demo device: not signed in" : "Demo device: signed in"),
        wide: true,
        device: true,
        error,
        claims: claims === null ? null : JSON.stringify(claims, null, 2),
        userinfo: null,
        amr: claims === null ? null : ((claims.amr as string[] | undefined)?.join(", ") ?? null),
        links: {
          again: `${issuer}${DEMO_PATHS.start}/device`,
          two_factor: `${issuer}${DEMO_PATHS.start}?acr_values=mfa`,
          account: `${issuer}/account`,
          logout: `${issuer}${PATHS.logout}`,
        },
      });
    }
  };
