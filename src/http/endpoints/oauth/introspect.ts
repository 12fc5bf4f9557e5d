/**
 * POST /introspect: OAuth 2.0 Token Introspection (RFC 7662).
 *
 * Who may ask (RFC 7662 §2.1 requires authorization; §4 warns about token scanning):
 * - only an authenticated client: a secret or private_key_jwt, never `none` (401 invalid_client);
 * - a client learns about the tokens issued to it;
 * - a client an operator marked `resource_server: true` in its metadata (server-side, never
 *   registrable) may also introspect other clients' ACCESS tokens: that is how an API checks the
 *   opaque tokens it is sent (oidc/tokens/access_and_refresh.ts). Refresh tokens stay private to their client.
 * Anything else — unknown, expired, revoked, spent (rotated), not the caller's, or of a user who
 * is gone or no longer active — is exactly `{"active": false}` (§2.2), so the answer never tells which.
 *
 * Active answers carry: active, scope, client_id, token_type ("Bearer" for access tokens, "DPoP"
 * with `cnf.jkt` for DPoP-bound ones (RFC 9449 §6.2), "refresh_token" for refresh tokens, the
 * RFC 7009 hint name), exp, iat, iss, and with a user
 * sub, username and auth_time, and the user's groups (and roles) when the token's scope has
 * `groups`, shaped by the token's client as in its ID Tokens (groups.ts). `aud` only for an
 * access token issued for a registered resource (RFC 8707, resources.ts): other tokens are not
 * audience-restricted, and naming an audience would mislead a resource server that checks it.
 * `act` for a delegated token (RFC 8693 §4.1). JWT access tokens (RFC 9068) are found by their jti.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { authenticated_client, refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { is_public } from "../../../oidc/clients/metadata.ts";
import { OAuthError, invalid_client } from "../../../oidc/errors.ts";
import { group_claims, wants_groups } from "../../../oidc/claims/groups.ts";
import { split_scope } from "../../../oidc/claims/scopes.ts";
import { invalid_request } from "../../errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientRow, TokenRow } from "../../../store/types.ts";
import { find_token, token_state } from "../../../oidc/tokens/access_and_refresh.ts";
import { INTROSPECTION_JWT_TYPE, accepts_introspection_jwt, sign_introspection } from "../../../oidc/tokens/jwt_responses.ts";
import { subject_for } from "../../../oidc/claims/pairwise.ts";
import { is_active_user } from "../../../oidc/accounts/account_status.ts";

const param = z.string().optional();

export const IntrospectRequest = Fw.Request(
  "IntrospectRequest",
  z.object({ token: param, token_type_hint: param, client_id: param, client_secret: param, client_assertion: param, client_assertion_type: param }),
  { on_invalid: invalid_request },
);

export type IntrospectionResponse = {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: "Bearer" | "DPoP" | "refresh_token";
  /** RFC 9449 §6.2: the thumbprint of the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
  exp?: number;
  iat?: number;
  iss?: string;
  sub?: string;
  username?: string;
  auth_time?: number;
  /** The group claims (groups.ts): `groups` or the client's name for it, and `roles`. */
  [claim: string]: unknown;
};

/** Whether `client` may learn about `token` (see the policy above). */
export function may_introspect(client: ClientRow, token: TokenRow): boolean {
  if (token.client_id === client.client_id) return true;
  return token.kind === "access" && client.metadata.resource_server === true;
}

export const Introspect = (idp: Provider) =>
  class Introspect extends Fw.Endpoint(IntrospectRequest, [Fw.Response.Json, Fw.Response.Bytes]) {
    static route = `POST ${PATHS.introspect}`;

    async call() {
      refuse_credentials_in_query(this.query, "client");
      const input = this.introspect_request;
      const client = await authenticated_client(idp, this.headers, input, "introspect", () => client_ip(this.context, idp.config));
      if (is_public(client)) throw invalid_client("introspection needs an authenticated client; a public client cannot use it", false, idp.config.issuer);
      if (input.token === undefined || input.token === "") throw new OAuthError("invalid_request", "token is required");

      // RFC 9701 §4: a caller that accepts application/token-introspection+jwt gets the answer signed.
      const as_jwt = accepts_introspection_jwt(this.headers.get("accept"));
      const answer = async (body: IntrospectionResponse) => (as_jwt ? new Fw.Response.Bytes(await sign_introspection(idp, client, body), INTROSPECTION_JWT_TYPE) : this.json(body));
      const token = await find_token(idp, input.token);
      const inactive: IntrospectionResponse = { active: false };
      if (token === null || token_state(token, idp.now()) !== "active" || !may_introspect(client, token)) return answer(inactive);
      const user = token.user_id === null ? null : await idp.store.get_user_by_id(token.user_id);
      // A token of a user who no longer exists or is not active (disabled) is not active either (account_status.ts).
      if (token.user_id !== null && !is_active_user(user)) return answer(inactive);
      // The token's client: its subject type gives the sub (pairwise.ts), its mapping the groups.
      const owner = token.client_id === client.client_id ? client : await idp.store.get_client(token.client_id);
      const body: IntrospectionResponse = {
        active: true,
        scope: token.scope,
        client_id: token.client_id,
        // RFC 9449 §6.2: a DPoP-bound access token is token_type DPoP.
        token_type: token.kind === "access" ? (token.jkt === null ? "Bearer" : "DPoP") : "refresh_token",
        exp: token.expires_at,
        iat: token.created_at,
        iss: idp.config.issuer,
      };
      // RFC 9449 §6.2: the resource server checks the proof's key against cnf.jkt.
      if (token.jkt !== null) body.cnf = { jkt: token.jkt };
      // RFC 7662 §2.2 aud: the resource an access token is audience-restricted to (RFC 8707);
      // RFC 8693 §4.1 act: the actor of a delegated token.
      if (token.kind === "access" && token.resources !== null) body.aud = token.resources.length === 1 ? token.resources[0] : token.resources;
      if (token.act !== null) body.act = token.act;
      if (user !== null) {
        // OIDC Core §8: the sub the token's client knows the user by.
        body.sub = owner === null ? user.id : subject_for(idp, owner, user.id);
        body.username = user.username;
        if (token.auth_time !== null) body.auth_time = token.auth_time;
        const scopes = split_scope(token.scope);
        if (wants_groups(scopes)) {
          // The token's client shapes the groups, so an API sees what that client's ID Tokens say.
          if (owner !== null) Object.assign(body, await group_claims(idp, owner, user.id, scopes, []));
        }
      }
      return answer(body);
    }
  };
