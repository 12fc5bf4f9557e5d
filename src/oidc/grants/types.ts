/**
 * What every grant of the token endpoint takes and returns (RFC 6749 §5.1, OIDC Core §3.1.3.3).
 * The endpoint (http/endpoints/oauth/token.ts) authenticates the client and checks it may use the grant;
 * each grant file then does the rest.
 */
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

/** The token request parameters the grants read (RFC 6749 §4.1.3, §4.4.2, §6). */
export type TokenParams = {
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
  refresh_token?: string | undefined;
  scope?: string | undefined;
  /** RFC 8628 §3.4. */
  device_code?: string | undefined;
  /** RFC 8707 §2: may repeat. */
  resource?: string | string[] | undefined;
  /** RFC 8693 §2.1. */
  subject_token?: string | undefined;
  subject_token_type?: string | undefined;
  actor_token?: string | undefined;
  actor_token_type?: string | undefined;
  requested_token_type?: string | undefined;
  audience?: string | string[] | undefined;
};

export type GrantContext = {
  idp: Provider;
  /** The authenticated client, registered for this grant type. */
  client: ClientRow;
  params: TokenParams;
  now: number;
  /** The caller's address, for the audit log. */
  ip: string;
  /** RFC 9449 §5: the thumbprint of the key of the request's verified DPoP proof; null without one. */
  dpop_jkt: string | null;
};

export type TokenResponse = {
  access_token: string;
  /** RFC 9449 §5: DPoP when the access token is bound to the client's DPoP key. */
  token_type: "Bearer" | "DPoP";
  expires_in: number;
  /** RFC 6749 §5.1: the granted scope (omitted when nothing was granted beyond the token itself). */
  scope?: string;
  refresh_token?: string;
  id_token?: string;
  /** RFC 8693 §2.2.1: the type of the token a token exchange issued. */
  issued_token_type?: string;
};
