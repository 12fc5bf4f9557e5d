/**
 * POST /token (RFC 6749 §3.2): authenticates the client (oidc/clients/authentication.ts), checks it may use the
 * grant type, and hands over to the grant (grants/): authorization_code (RFC 6749 §4.1.3, OIDC
 * Core §3.1.3), refresh_token (§6, OIDC Core §12), client_credentials (§4.4), the device code
 * (RFC 8628 §3.4) or token exchange (RFC 8693).
 *
 * Hot path of the code grant (benchmarked): one client lookup, one atomic consume_code, the token
 * insert and user lookup together, one signature.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { authenticated_client, refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import { allows_grant } from "../../../oidc/clients/metadata.ts";
import { OAuthError } from "../../../oidc/errors.ts";
import { FAPI_GRANT_TYPES, fapi_metadata_problem, is_fapi } from "../../../oidc/clients/fapi.ts";
import { nonce_to_send, token_request_proof } from "../../../oidc/tokens/dpop.ts";
import { invalid_request } from "../../errors.ts";
import { authorization_code_grant } from "../../../oidc/grants/authorization_code.ts";
import { client_credentials_grant } from "../../../oidc/grants/client_credentials.ts";
import { refresh_token_grant } from "../../../oidc/grants/refresh_token.ts";
import { device_code_grant } from "../../../oidc/grants/device_code.ts";
import { token_exchange_grant } from "../../../oidc/grants/token_exchange.ts";
import type { GrantContext, TokenResponse } from "../../../oidc/grants/types.ts";
import type { GRANT_TYPES } from "../../../oidc/discovery/metadata.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { record_first_use } from "../../../oidc/registration/unused_clients.ts";
import { client_ip } from "../../middleware/proxy.ts";

export type { TokenResponse } from "../../../oidc/grants/types.ts";

const param = z.string().optional();

export const TokenRequest = Fw.Request(
  "TokenRequest",
  z.object({
    grant_type: param,
    code: param,
    redirect_uri: param,
    code_verifier: param,
    refresh_token: param,
    scope: param,
    device_code: param,
    // RFC 8707 §2: resource may repeat (and RFC 8693 §2.1 audience).
    resource: z.union([z.string(), z.array(z.string())]).optional(),
    audience: z.union([z.string(), z.array(z.string())]).optional(),
    subject_token: param,
    subject_token_type: param,
    actor_token: param,
    actor_token_type: param,
    requested_token_type: param,
    client_id: param,
    client_secret: param,
    client_assertion: param,
    client_assertion_type: param,
  }),
  { on_invalid: invalid_request },
);

type GrantType = (typeof GRANT_TYPES)[number];

const GRANTS: Record<GrantType, (ctx: GrantContext) => Promise<TokenResponse>> = {
  authorization_code: authorization_code_grant,
  refresh_token: refresh_token_grant,
  client_credentials: client_credentials_grant,
  "urn:ietf:params:oauth:grant-type:device_code": device_code_grant,
  "urn:ietf:params:oauth:grant-type:token-exchange": token_exchange_grant,
};

function is_grant_type(value: string): value is GrantType {
  return Object.hasOwn(GRANTS, value);
}

export const Token = (idp: Provider) =>
  class Token extends Fw.Endpoint(TokenRequest, Fw.Response.Json) {
    static route = `POST ${PATHS.token}`;

    async call() {
      // RFC 6749 §5.1 (no-store, errors too) is ProtocolHandler's: it sets them on every /token answer.
      refuse_credentials_in_query(this.query, "client");
      const input = this.token_request;
      const context = this.context;
      // Asked for once, and only when needed (the failure limits, the grants that audit): asking
      // the server for the socket address (server.requestIP) on every token was a visible share
      // of a client_credentials token's CPU (bench/RESULTS.md, "Token path trims").
      let address: string | undefined;
      const ip = () => (address ??= client_ip(context, idp.config));
      const client = await authenticated_client(idp, this.headers, input, "token", ip);
      const grant_type = input.grant_type;
      if (grant_type === undefined || grant_type === "") throw new OAuthError("invalid_request", "grant_type is required");
      if (!is_grant_type(grant_type)) throw new OAuthError("unsupported_grant_type", `grant_type ${grant_type} is not supported`);
      if (!allows_grant(client, grant_type)) throw new OAuthError("unauthorized_client", `this client may not use the ${grant_type} grant`);
      const fapi = is_fapi(idp, client);
      if (fapi) {
        if (!FAPI_GRANT_TYPES.includes(grant_type)) throw new OAuthError("unauthorized_client", `the ${grant_type} grant is not offered under FAPI 2.0`);
        // A client registered before IDP_FAPI=2.0 may not meet the profile (RS256 ID Tokens): refused, naming what to change.
        const problem = fapi_metadata_problem(client.metadata, idp.keys.signing_algs());
        if (problem !== null) throw new OAuthError("unauthorized_client", `this client's registration does not meet FAPI 2.0: ${problem.field} ${problem.message}`);
      }
      // RFC 9449 §5: a DPoP proof binds the tokens to the client's key (dpop.ts); htu is the
      // token endpoint as discovery names it, never derived from the Host header.
      // FAPI 2.0 §5.3.2.1: a FAPI client's token requests always carry one (fapi.ts).
      const proof = await token_request_proof(idp, this.headers.get("dpop"), `${idp.config.issuer}${PATHS.token}`, client.metadata.dpop_bound_access_tokens === true, fapi);

      const now = idp.now();
      const body = await GRANTS[grant_type]({
        idp,
        client,
        params: input,
        now,
        // Read only by the grants that audit (a code reuse, a refresh).
        get ip() {
          return ip();
        },
        dpop_jkt: proof?.jkt ?? null,
      });
      // RFC 9449 §8: with nonces required, every answer to a DPoP request carries the current one.
      if (proof !== null) {
        const nonce = await nonce_to_send(idp);
        if (nonce !== undefined) this.response.headers.set("dpop-nonce", nonce);
      }
      idp.metrics.token_issued(grant_type);
      // The client's first token, once (a write only while none is recorded): an anonymous
      // registration that never gets here expires (oidc/registration/unused_clients.ts).
      await record_first_use(idp, client, now);
      return this.json(body);
    }
  };
