/**
 * The logout request (OIDC RP-Initiated Logout 1.0 §2) and its checks. Every failure is an error
 * page, never a redirect: an unverified post_logout_redirect_uri would be an open redirect (§3,
 * and §5 "Security Considerations").
 *
 * - id_token_hint: an ID Token we issued (signature with our keys, our issuer). Past its exp it
 *   is still accepted (§4: "even when the exp time has passed"). Another JWT of ours (a logout
 *   token, Back-Channel Logout §4.1; a signed UserInfo response…) is refused here: cross-JWT
 *   confusion (tokens/id_token_hint.ts).
 * - client_id: when sent with a hint, the hint's aud must contain it (§2).
 * - post_logout_redirect_uri: needs a client (client_id or the hint's aud, §2) and must be one of
 *   its registered post_logout_redirect_uris, compared exactly (§3: "MUST NOT perform
 *   post-logout redirection if [it] does not exactly match").
 * - state: returned with the redirect (§3). ui_locales chooses the page's language (the HTTP
 *   layer reads it, middleware/locale.ts); logout_hint is accepted and not used: the session (or
 *   the hint) says who is signed in.
 */
import { z } from "zod";
import { PageError } from "../errors.ts";
import { verify_id_token_hint, type IdTokenHint } from "../tokens/id_token_hint.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

/** The parameters of §2 as sent (GET query or POST form); unknown ones are ignored. */
export const logout_params = {
  id_token_hint: z.string().max(16384).optional(),
  client_id: z.string().max(256).optional(),
  post_logout_redirect_uri: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
  ui_locales: z.string().max(256).optional(),
  logout_hint: z.string().max(1024).optional(),
};

export type LogoutParams = { id_token_hint?: string | undefined; client_id?: string | undefined; post_logout_redirect_uri?: string | undefined; state?: string | undefined };

/** What an id_token_hint told us, once verified. */
export type LogoutHint = IdTokenHint;

/** A checked logout request. */
export type ValidLogout = {
  /** The client asking (client_id, or the hint's audience), null when unknown. */
  client: ClientRow | null;
  hint: LogoutHint | null;
  /** Registered for `client`, so safe to redirect to; null: show the "signed out" page. */
  post_logout_redirect_uri: string | null;
  state: string | null;
};

export function invalid_logout(message: string): PageError {
  return new PageError("This sign-out request is not valid", message, "invalid_request");
}

/** An empty parameter counts as absent (forms send empty hidden fields). */
function given(value: string | undefined): string | null {
  return value === undefined || value === "" ? null : value;
}

async function verify_hint(idp: Provider, jwt: string): Promise<LogoutHint> {
  const checked = await verify_id_token_hint(idp, jwt);
  if (checked.ok) return checked.hint;
  if (checked.reason === "unverified") throw invalid_logout("The application sent a sign-in token that was not issued by this service. You have not been signed out.");
  throw invalid_logout("The application sent a token that is not an ID Token. You have not been signed out.");
}

export async function validate_logout(idp: Provider, params: LogoutParams): Promise<ValidLogout> {
  const hint_jwt = given(params.id_token_hint);
  const client_id = given(params.client_id);
  const redirect_uri = given(params.post_logout_redirect_uri);
  const hint = hint_jwt === null ? null : await verify_hint(idp, hint_jwt);

  let client: ClientRow | null = null;
  if (client_id !== null) {
    // §2: with both, the client_id must be the audience of the ID Token.
    if (hint !== null && !hint.aud.includes(client_id)) {
      throw invalid_logout("The sign-out request names an application that the sign-in token was not issued to. You have not been signed out.");
    }
    client = await idp.store.get_client(client_id);
    if (client === null) throw invalid_logout("The application that sent you here is not registered with this service. You have not been signed out.");
  } else if (hint !== null && hint.aud.length === 1) {
    // Our ID Tokens have one audience; a client deleted since is simply unknown.
    client = await idp.store.get_client(hint.aud[0]!);
  }

  if (redirect_uri !== null) {
    // §2: "When post_logout_redirect_uri is included, either id_token_hint or client_id MUST also be included."
    if (client === null) {
      throw invalid_logout("The application asked to be sent back after sign-out without saying which application it is. You have not been signed out.");
    }
    // §3: exact match with a registered value; otherwise no redirection at all.
    if (!(client.metadata.post_logout_redirect_uris ?? []).includes(redirect_uri)) {
      throw invalid_logout("The application asked to be sent back to an address it has not registered. You have not been signed out.");
    }
  }
  return { client, hint, post_logout_redirect_uri: redirect_uri, state: given(params.state) };
}

/** §3: the registered URI with `state` added to its query (its own query is kept). */
export function post_logout_redirect(request: ValidLogout): string | null {
  if (request.post_logout_redirect_uri === null) return null;
  const uri = request.post_logout_redirect_uri;
  if (request.state === null) return uri;
  // Appended as text: the registered URI is sent back exactly as registered (no URL normalising).
  return `${uri}${uri.includes("?") ? "&" : "?"}${new URLSearchParams({ state: request.state }).toString()}`;
}
