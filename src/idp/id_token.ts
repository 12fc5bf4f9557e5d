/**
 * The ID Token (OIDC Core §2, §3.1.3.6), signed with the provider's active key for the alg the
 * client registered (id_token_signed_response_alg, RS256 by default: OIDC Core §15.1).
 */
import { claims_for } from "./claims.ts";
import { at_hash } from "./crypto/hashes.ts";
import { OAuthError } from "./errors.ts";
import type { Alg } from "./keys/keyring.ts";
import { session_sid } from "./logout/sid.ts";
import type { Provider } from "./provider.ts";
import type { ClientRow, CodeRow, UserRow } from "./store/types.ts";

/** The alg to sign this client's ID tokens with. */
export function id_token_alg(idp: Provider, client: ClientRow): Alg {
  const wanted = client.metadata.id_token_signed_response_alg ?? "RS256";
  const alg = idp.keys.signing_algs().find((a) => a === wanted);
  // Registration only accepts configured algs; a client left behind by a config change gets a
  // clear error instead of a token it would reject.
  if (alg === undefined) throw new OAuthError("server_error", `id_token_signed_response_alg ${wanted} is not available on this provider`);
  return alg;
}

export type IdTokenInput = {
  client: ClientRow;
  user: UserRow;
  code: CodeRow;
  scopes: readonly string[];
  access_token: string;
  now: number;
};

export async function sign_id_token(idp: Provider, input: IdTokenInput): Promise<string> {
  const { client, user, code, now } = input;
  const alg = id_token_alg(idp, client);
  // OIDC Core §5.4 puts the claims of profile/email/address/phone in the ID Token only when no
  // access token is issued (response_type=id_token); with the code flow they come from /userinfo.
  // This provider ALSO puts them in the ID Token (as Google, Auth0 and Keycloak do), so a client
  // gets name and email without a second request. Only the granted scopes' claims are added.
  const payload: Record<string, unknown> = {
    ...claims_for(user, input.scopes),
    iss: idp.config.issuer,
    sub: user.id,
    aud: client.client_id,
    exp: now + idp.config.tokens.id_token_ttl,
    iat: now,
    auth_time: code.auth_time,
    // OIDC Core §3.1.3.6: at_hash of the access token issued with this ID Token.
    at_hash: at_hash(input.access_token, alg),
  };
  // OIDC Core §3.1.2.1 / §3.1.3.7: the nonce of the request, unmodified, when it was sent.
  if (code.nonce !== null) payload.nonce = code.nonce;
  if (code.amr.length > 0) payload.amr = code.amr;
  if (code.acr !== null) payload.acr = code.acr;
  // OIDC Back-Channel Logout §2.1 (backchannel_logout_session_supported): sid, matched by the RP
  // against the sid of a logout token.
  if (code.session_id_hash !== null) payload.sid = session_sid(code.session_id_hash);
  // azp is only needed with several audiences (OIDC Core §2); we issue one audience.
  return idp.keys.sign(payload, { alg });
}
