/**
 * GET|POST /userinfo (OIDC Core §5.3): the claims of the scopes the access token was granted,
 * for a Bearer token (RFC 6750 §2.1 header, or §2.2 form body on POST), or a DPoP-bound token
 * with its proof (RFC 9449 §7: `Authorization: DPoP <token>` and a `DPoP` header whose `ath`
 * names the token). A DPoP-bound token sent as Bearer is refused (§7.2).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { bearer_credentials, dpop_credentials } from "../../../oidc/tokens/bearer.ts";
import { check_token_binding, dpop_challenge, nonce_to_send, resource_request_proof } from "../../../oidc/tokens/dpop.ts";
import { claims_for } from "../../../oidc/claims/user_claims.ts";
import { requested_claims } from "../../../oidc/claims/request.ts";
import { BearerError } from "../../../oidc/errors.ts";
import { is_fapi, is_fapi_alg } from "../../../oidc/clients/fapi.ts";
import { group_claims, wants_groups } from "../../../oidc/claims/groups.ts";
import { attribute_claims, load_attribute_catalog } from "../../../oidc/attributes/claims.ts";
import { describe_issues, to_http } from "../../errors.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { split_scope } from "../../../oidc/claims/scopes.ts";
import { find_access_token } from "../../../oidc/tokens/access_and_refresh.ts";
import { sign_userinfo, wants_signed_userinfo } from "../../../oidc/tokens/jwt_responses.ts";
import { subject_for } from "../../../oidc/claims/pairwise.ts";
import { is_active_user } from "../../../oidc/accounts/account_status.ts";

export const Userinfo = (idp: Provider) => {
  const realm = idp.config.issuer;
  const UserinfoRequest = Fw.Request("UserinfoRequest", z.object({ access_token: z.string().optional() }), {
    on_invalid: (issues) => to_http(new BearerError("invalid_request", describe_issues(issues), realm)),
  });
  return class Userinfo extends Fw.Endpoint(UserinfoRequest, [Fw.Response.Json, Fw.Response.Bytes]) {
    static route = `GET|POST ${PATHS.userinfo}`;

    async call() {
      this.response.headers.set("cache-control", "no-store");
      const authorization = this.headers.get("authorization");
      const dpop_token = dpop_credentials(authorization, realm);
      let token = dpop_token ?? bearer_credentials(authorization, realm);
      // Only the body counts (§2.2); the URI query form (§2.3) is not supported.
      const body = this.request.body as { access_token?: unknown } | undefined;
      if (typeof body?.access_token === "string") {
        // RFC 6750 §2: "Clients MUST NOT use more than one method to transmit the token".
        if (token !== null) throw new BearerError("invalid_request", "send the access token once: header or body, not both", realm);
        token = body.access_token;
      }
      // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
      if (token === null) throw new BearerError(null, "an access token is required", realm);

      // RFC 9449 §7.1: the proof is of this request (htu from the issuer, never the Host header) and names the token (ath).
      const htu = `${idp.config.issuer}${PATHS.userinfo}`;
      const proof = dpop_token === null ? null : await resource_request_proof(idp, this.headers.get("dpop"), { htm: this.request.method, htu, access_token: token }, realm);
      const found = await find_access_token(idp, token);
      if (!found.ok)
        throw new BearerError("invalid_token", `the access token is ${found.reason === "unknown" ? "invalid" : found.reason}`, realm, proof === null ? null : dpop_challenge());
      check_token_binding(found.token.jkt, proof, realm);
      if (proof !== null) {
        // RFC 9449 §8: with nonces required, answers to DPoP requests carry the current one.
        const nonce = await nonce_to_send(idp);
        if (nonce !== undefined) this.response.headers.set("dpop-nonce", nonce);
      }
      const scopes = split_scope(found.token.scope);
      // OIDC Core §5.3: UserInfo is for tokens granted the openid scope.
      if (!scopes.includes("openid")) throw new BearerError("insufficient_scope", "the access token was not granted the openid scope", realm);
      const catalog = await load_attribute_catalog(idp.store);
      const requested = requested_claims(found.token.claims, "userinfo", catalog.claim_scopes);
      const user_id = found.token.user_id;
      // The client shapes the answer: its group mapping (groups.ts), its subject type (pairwise.ts)
      // and whether it registered for signed UserInfo (jwt_responses.ts).
      const [user, client] = await Promise.all([user_id === null ? null : idp.store.get_user_by_id(user_id), idp.store.get_client(found.token.client_id)]);
      if (user === null) throw new BearerError("invalid_token", "the user of this access token no longer exists", realm);
      // RFC 6750 §3.1: a token of a user who is no longer active (disabled) is not valid (account_status.ts).
      if (!is_active_user(user)) throw new BearerError("invalid_token", "the user of this access token is not active", realm, proof === null ? null : dpop_challenge());
      if (client === null) throw new BearerError("invalid_token", "the client of this access token no longer exists", realm);
      // FAPI 2.0 §5.4.1: a FAPI client's proofs are PS256, ES256 or EdDSA here too (at /token: dpop.ts).
      if (proof !== null && !is_fapi_alg(proof.alg) && is_fapi(idp, client))
        throw new BearerError("invalid_dpop_proof", "the DPoP proof must be signed with PS256, ES256 or EdDSA (FAPI 2.0 §5.4.1)", realm, dpop_challenge());
      const groups = wants_groups(scopes, requested) ? await group_claims(idp, client, user.id, scopes, requested) : {};
      // OIDC Core §8: the sub this client knows the user by.
      const attributes = await attribute_claims(idp.store, catalog, user.id, scopes, requested);
      const claims = { ...claims_for(user, scopes, requested), ...groups, ...attributes, sub: subject_for(idp, client, user.id) };
      // OIDC Core §5.3.2: a client that registered userinfo_signed_response_alg gets a JWT.
      if (wants_signed_userinfo(client)) return new Fw.Response.Bytes(await sign_userinfo(idp, client, claims), "application/jwt");
      return this.json(claims);
    }
  };
};
