/**
 * The id_token_hint of an authorization request (OIDC Core §3.1.2.1) and of a logout request
 * (RP-Initiated Logout 1.0 §2): an ID Token we issued, expired ones too — and nothing else we
 * signed (RFC 8725 §2.8, cross-JWT confusion). Our signature and issuer are not enough:
 *
 * - The header's `typ` is the ID Token's, "JWT" (id_token.ts `ID_TOKEN_TYP`). Our other JWTs are
 *   typed explicitly (RFC 8725 §3.11): at+jwt (RFC 9068), logout+jwt (Back-Channel Logout §2.4),
 *   token-introspection+jwt (RFC 9701), dpop-nonce+jwt, and client-authentication+jwt for the
 *   assertions we send upstreams (federation/relying_party.ts); every one is refused here.
 * - A signed UserInfo response (OIDC Core §5.3.2) and a JARM response keep typ JWT: neither
 *   specification defines a type, and relying parties' JWT libraries commonly accept JWT or none
 *   only. The claims tell them apart: an ID Token has iss, sub, aud, exp and iat (OIDC Core §2);
 *   a UserInfo response never has exp or iat (a renamed groups claim cannot take those names,
 *   claims/groups.ts RESERVED_CLAIMS), a JARM response has no sub, a logout token has events.
 */
import { decodeProtectedHeader } from "jose";
import { TokenVerifyError } from "../keys/errors.ts";
import type { Provider } from "../provider.ts";
import { ID_TOKEN_TYP } from "./id_token.ts";

/** What a verified hint tells: the user (as the client knows them), the session, the audience. */
export type IdTokenHint = { sub: string; sid: string | null; aud: string[] };

/**
 * - unverified: not signed by one of our keys, tampered with, or of another issuer;
 * - not_id_token: ours, but another type of JWT.
 */
export type HintCheck = { ok: true; hint: IdTokenHint } | { ok: false; reason: "unverified" | "not_id_token" };

export async function verify_id_token_hint(idp: Provider, jwt: string): Promise<HintCheck> {
  let claims;
  try {
    // RP-Initiated Logout §2 (and §4): a hint past its exp is still a hint.
    claims = await idp.keys.verify(jwt, { allow_expired: true, issuer: idp.config.issuer });
  } catch (error) {
    if (error instanceof TokenVerifyError) return { ok: false, reason: "unverified" };
    throw error;
  }
  // Verified, so the header is well-formed JSON.
  if (decodeProtectedHeader(jwt).typ !== ID_TOKEN_TYP) return { ok: false, reason: "not_id_token" };
  const aud = typeof claims.aud === "string" ? [claims.aud] : (claims.aud ?? []);
  const shaped = typeof claims.sub === "string" && aud.length > 0 && typeof claims.exp === "number" && typeof claims.iat === "number" && !("events" in claims);
  if (!shaped) return { ok: false, reason: "not_id_token" };
  return { ok: true, hint: { sub: claims.sub!, sid: typeof claims.sid === "string" ? claims.sid : null, aud } };
}
