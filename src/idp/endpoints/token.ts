/**
 * POST /token: the authorization code grant (RFC 6749 §4.1.3, OIDC Core §3.1.3).
 *
 * Hot path (benchmarked): one client lookup, one atomic consumeCode, one user lookup, one
 * insertToken and one signature.
 */
import { z } from "zod";
import { Fw } from "../../fw/index.ts";
import { authenticate_client, read_credentials } from "../client_auth.ts";
import { allows_grant } from "../clients.ts";
import { sha256 } from "../crypto/secrets.ts";
import { OAuthError, invalid_request } from "../errors.ts";
import { sign_id_token } from "../id_token.ts";
import { PATHS } from "../metadata.ts";
import { verify_s256 } from "../pkce.ts";
import type { Provider } from "../provider.ts";
import { split_scope } from "../scopes.ts";
import { issue_access_token } from "../tokens.ts";

const param = z.string().optional();

export const TokenRequest = Fw.Request(
  "TokenRequest",
  z.object({ grant_type: param, code: param, redirect_uri: param, code_verifier: param, client_id: param, client_secret: param }),
  { on_invalid: invalid_request },
);

export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  id_token?: string;
};

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export const Token = (idp: Provider) =>
  class Token extends Fw.Endpoint(TokenRequest, Fw.Response.Json) {
    static route = `POST ${PATHS.token}`;

    async call() {
      // RFC 6749 §5.1: responses with tokens MUST NOT be cached (errors neither).
      const headers = this.response.headers;
      headers.set("cache-control", "no-store");
      headers.set("pragma", "no-cache");
      const input = this.token_request;
      // RFC 6749 §3.2: parameters are sent as application/x-www-form-urlencoded.
      if (!FORM.test(this.headers.get("content-type") ?? "")) {
        throw new OAuthError("invalid_request", "send the parameters as application/x-www-form-urlencoded");
      }
      const client = await authenticate_client(idp, read_credentials(idp, this.headers.get("authorization"), input));
      if (input.grant_type === undefined || input.grant_type === "") throw new OAuthError("invalid_request", "grant_type is required");
      if (input.grant_type !== "authorization_code") throw new OAuthError("unsupported_grant_type", `grant_type ${input.grant_type} is not supported`);
      if (!allows_grant(client, input.grant_type)) throw new OAuthError("unauthorized_client", "this client may not use the authorization_code grant");
      if (input.code === undefined || input.code === "") throw new OAuthError("invalid_request", "code is required");

      const now = idp.now();
      const result = await idp.store.consumeCode(sha256(input.code), now);
      if (result.status === "not_found") throw new OAuthError("invalid_grant", "the authorization code is invalid");
      if (result.status === "expired") throw new OAuthError("invalid_grant", "the authorization code has expired");
      const code = result.code;
      if (result.status === "reused") {
        // RFC 6749 §4.1.2 / RFC 9700 §4.5: a code used twice may have been stolen; revoke every
        // token issued from it. Only for the client it was issued to, so another client holding
        // a leaked code cannot revoke the user's tokens with it.
        if (code.client_id === client.client_id) await idp.store.revokeByGrant(code.grant_id, now);
        throw new OAuthError("invalid_grant", "the authorization code was already used");
      }
      // RFC 6749 §4.1.3: the code was issued to this client ...
      if (code.client_id !== client.client_id) throw new OAuthError("invalid_grant", "the authorization code was issued to another client");
      // ... and redirect_uri is identical to the one of the authorization request (which
      // always carries one: OIDC Core §3.1.2.1).
      if (input.redirect_uri !== code.redirect_uri) throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request");
      if (code.code_challenge !== null) {
        // RFC 7636 §4.6.
        if (input.code_verifier === undefined) throw new OAuthError("invalid_grant", "code_verifier is required");
        if (!verify_s256(input.code_verifier, code.code_challenge)) throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
      } else if (input.code_verifier !== undefined) {
        // RFC 9700 §2.1.1: a code_verifier for a code requested without code_challenge is a
        // PKCE downgrade attempt; the request MUST be rejected. invalid_grant: the grant, not
        // the request, is what does not fit.
        throw new OAuthError("invalid_grant", "code_verifier sent but the authorization request had no code_challenge");
      }

      const scopes = split_scope(code.scope);
      const issued = await issue_access_token(idp, code, now);
      const body: TokenResponse = { access_token: issued.token, token_type: "Bearer", expires_in: issued.expires_in, scope: code.scope };
      // OIDC Core §3.1.3.3: an ID Token when the openid scope was granted; plain OAuth 2.0 otherwise.
      if (scopes.includes("openid")) {
        const user = await idp.store.getUserById(code.user_id);
        if (user === null) {
          await idp.store.revokeByGrant(code.grant_id, now);
          throw new OAuthError("invalid_grant", "the user of this authorization code no longer exists");
        }
        body.id_token = await sign_id_token(idp, { client, user, code, scopes, access_token: issued.token, now });
      }
      idp.metrics.token_issued(input.grant_type);
      return this.json(body);
    }
  };
