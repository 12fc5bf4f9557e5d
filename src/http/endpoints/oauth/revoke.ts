/**
 * POST /revoke: OAuth 2.0 Token Revocation (RFC 7009). The client authenticates as at /token
 * (public clients by client_id, so a browser app can end its tokens at sign-out).
 *
 * - §2.1: a client may revoke only tokens issued to it. Revoking a refresh token revokes its
 *   family: every refresh and access token of the same authorization ("SHOULD also invalidate
 *   all access tokens based on the same authorization grant"). An access token goes alone.
 * - §2.1: token_type_hint is a hint only. Both kinds live in one table and are found by their
 *   hash whatever the hint says; an unknown hint value is ignored, so unsupported_token_type is
 *   never needed (every token this server issues can be revoked).
 * - §2.2: 200 whether or not anything was revoked: unknown, expired, already revoked or another
 *   client's token (left untouched) all look the same, so the endpoint tells nothing about them.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { record_event } from "../../../oidc/audit.ts";
import { authenticated_client, refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import { OAuthError } from "../../../oidc/errors.ts";
import { invalid_request } from "../../errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { find_token, revoke_token } from "../../../oidc/tokens/access_and_refresh.ts";

const param = z.string().optional();

export const RevokeRequest = Fw.Request(
  "RevokeRequest",
  z.object({ token: param, token_type_hint: param, client_id: param, client_secret: param, client_assertion: param, client_assertion_type: param }),
  { on_invalid: invalid_request },
);

export const Revoke = (idp: Provider) =>
  class Revoke extends Fw.Endpoint(RevokeRequest, Fw.Response.Text) {
    static route = `POST ${PATHS.revoke}`;

    async call() {
      refuse_credentials_in_query(this.query, "client");
      const input = this.revoke_request;
      const client = await authenticated_client(idp, this.headers, input, "revoke", () => client_ip(this.context, idp.config));
      if (input.token === undefined || input.token === "") throw new OAuthError("invalid_request", "token is required");
      const token = await find_token(idp, input.token);
      if (token !== null && token.client_id === client.client_id && token.revoked_at === null) {
        const now = idp.now();
        const revoked = await revoke_token(idp, token, now);
        if (revoked > 0) {
          await record_event(idp, {
            type: "tokens_revoked",
            outcome: "success",
            user_id: token.user_id,
            client_id: client.client_id,
            ip: client_ip(this.context, idp.config) || null,
            at: now,
            details: { via: "revocation_endpoint", token_kind: token.kind, revoked_tokens: revoked },
          });
        }
      }
      return this.text("");
    }
  };
