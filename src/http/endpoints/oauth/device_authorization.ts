/**
 * POST /device_authorization: the device authorization endpoint (RFC 8628 §3.1, §3.2). The client
 * authenticates as at /token (a public client by its client_id, RFC 8628 §3.1), must be
 * registered for the device grant, and gets a device_code to poll /token with and a user_code
 * for the user to enter at verification_uri (device.ts). Errors are in the OAuth JSON shape
 * (RFC 8628 §3.2 refers to RFC 6749 §5.2); answers are no-store with CORS (ProtocolHandler).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { authenticated_client, refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import { is_fapi } from "../../../oidc/clients/fapi.ts";
import { OAuthError } from "../../../oidc/errors.ts";
import { start_device_authorization } from "../../../oidc/authorize/device.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

const param = z.string().optional();

export const DeviceAuthorizationRequest = Fw.Request(
  "DeviceAuthorizationRequest",
  z.object({ scope: param, client_id: param, client_secret: param, client_assertion: param, client_assertion_type: param }),
  { on_invalid: invalid_request, from: ["body"] },
);

export const DeviceAuthorization = (idp: Provider) =>
  class DeviceAuthorization extends Fw.Endpoint(DeviceAuthorizationRequest, Fw.Response.Json) {
    static route = `POST ${PATHS.device_authorization}`;

    async call() {
      refuse_credentials_in_query(this.query, "client");
      const input = this.device_authorization_request;
      const client = await authenticated_client(idp, this.headers, input, "device_authorization", () => client_ip(this.context, idp.config));
      // RFC 8628 §3.2: 200 with the codes, the verification URIs, expires_in and interval.
      // FAPI 2.0 §5.3.2.2: the code flow only; the device flow is outside the profile (fapi.ts).
      if (is_fapi(idp, client)) throw new OAuthError("unauthorized_client", "the device flow is not offered under FAPI 2.0");
      return this.json(await start_device_authorization(idp, client, input.scope));
    }
  };
