/**
 * The ID Token (OIDC Core §2, §3.1.3.6), signed with the provider's active key for the alg the
 * client registered (id_token_signed_response_alg, RS256 by default: OIDC Core §15.1). Issued at
 * the code exchange and again at a refresh (§12.2), from what the code or token row recorded of
 * the original authentication.
 */
import { claims_for } from "../claims/user_claims.ts";
import { requested_claims } from "../claims/request.ts";
import { at_hash } from "../crypto/hashes.ts";
import { group_claims } from "../claims/groups.ts";
import { attribute_claims, load_attribute_catalog } from "../attributes/claims.ts";
import { OAuthError } from "../errors.ts";
import type { Alg } from "../keys/keyring.ts";
import { session_sid } from "../logout/sid.ts";
import { subject_for } from "../claims/pairwise.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, JsonObject, UserRow } from "../../store/types.ts";

/**
 * The ID Token's JWS `typ`: "JWT", as RFC 7519 §5.1 recommends and relying parties expect. Our
 * other JWTs carry their own types, so an ID Token is told from them by it (id_token_hint.ts).
 */
export const ID_TOKEN_TYP = "JWT";

/** The alg to sign this client's ID tokens with. */
export function id_token_alg(idp: Provider, client: ClientRow): Alg {
  const wanted = client.metadata.id_token_signed_response_alg ?? "RS256";
  const alg = idp.keys.signing_algs().find((a) => a === wanted);
  // Registration only accepts configured algs; a client left behind by a config change gets a
  // clear error instead of a token it would reject.
  if (alg === undefined) throw new OAuthError("server_error", `id_token_signed_response_alg ${wanted} is not available on this provider`);
  return alg;
}

/** The original authentication, as a code row or a token row of its grant records it. */
export type AuthenticationRecord = {
  auth_time: number | null;
  amr: string[];
  acr: string | null;
  nonce: string | null;
  /** The claims request (OIDC Core §5.5) of the authorization, when one was made. */
  claims: JsonObject | null;
  /** The browser session it happened in: gives the sid claim. */
  session_id_hash?: string | null;
};

export type IdTokenInput = {
  client: ClientRow;
  user: UserRow;
  authentication: AuthenticationRecord;
  scopes: readonly string[];
  access_token: string;
  now: number;
  /**
   * A refresh (OIDC Core §12.2): iss, sub, aud and auth_time stay those of the original ID Token,
   * iat is new, and no nonce — it belonged to the authentication request, not to this one.
   */
  refresh?: boolean;
  /** The user's groups when the caller read them already (the access policy did). */
  groups?: readonly string[] | null;
};

export async function sign_id_token(idp: Provider, input: IdTokenInput): Promise<string> {
  const { client, user, authentication, now } = input;
  const alg = id_token_alg(idp, client);
  const catalog = await load_attribute_catalog(idp.store);
  const requested = requested_claims(authentication.claims, "id_token", catalog.claim_scopes);
  // OIDC Core §5.4 puts the claims of profile/email/address/phone in the ID Token only when no
  // access token is issued (response_type=id_token); with the code flow they come from /userinfo.
  // This provider ALSO puts them in the ID Token (as Google, Auth0 and Keycloak do), so a client
  // gets name and email without a second request. Only the granted scopes' claims are added.
  const payload: Record<string, unknown> = {
    // OIDC Core §5.5: plus the claims requested individually for the ID Token.
    ...claims_for(user, input.scopes, requested),
    // The scope groups (or a claims request for them): groups and roles as the client maps them.
    ...(await group_claims(idp, client, user.id, input.scopes, requested, input.groups)),
    // The operator's attributes under their scopes or named in the claims request (attributes/claims.ts).
    ...(await attribute_claims(idp.store, catalog, user.id, input.scopes, requested)),
    iss: idp.config.issuer,
    // OIDC Core §8: the user's id, or its pairwise form for a pairwise client (pairwise.ts).
    sub: subject_for(idp, client, user.id),
    aud: client.client_id,
    exp: now + idp.config.tokens.id_token_ttl,
    iat: now,
    // OIDC Core §3.1.3.6: at_hash of the access token issued with this ID Token.
    at_hash: at_hash(input.access_token, alg),
  };
  if (authentication.auth_time !== null) payload.auth_time = authentication.auth_time;
  // OIDC Core §3.1.2.1 / §3.1.3.7: the nonce of the request, unmodified, when it was sent.
  if (authentication.nonce !== null && input.refresh !== true) payload.nonce = authentication.nonce;
  if (authentication.amr.length > 0) payload.amr = authentication.amr;
  if (authentication.acr !== null) payload.acr = authentication.acr;
  // OIDC Back-Channel Logout §2.1 (backchannel_logout_session_supported): sid, matched by the RP
  // against the sid of a logout token.
  if (typeof authentication.session_id_hash === "string") payload.sid = session_sid(authentication.session_id_hash);
  // azp is only needed with several audiences (OIDC Core §2); we issue one audience, on refresh too.
  return idp.keys.sign(payload, { alg, typ: ID_TOKEN_TYP });
}
