/**
 * The `request_uri` of a pushed authorization request (RFC 9126 §4), as /authorize reads it:
 * with `request_uri` and `client_id` it uses the pushed parameters and only them; the reference is
 * consumed atomically (single use), and only by the client that pushed it. `requires_par`: the
 * server setting `par.required` and the client metadata `require_pushed_authorization_requests`
 * (§5, §6). Pushing is par.ts.
 */
import { sha256 } from "../crypto/secrets.ts";
import { PageError } from "../errors.ts";
import { is_fapi } from "../clients/fapi.ts";
import type { Provider } from "../provider.ts";
import type { RawParams } from "./request_object.ts";
import type { ClientRow } from "../../store/types.ts";

/** RFC 9126 §2.2: the request_uri is a URN of this form, with an unguessable tail. */
export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";

/** Whether a request_uri (as sent: repeated ones are arrays) names a pushed request; repeated ones count, and are refused by `pushed_params`. */
export function is_pushed_reference(request_uri: string | string[] | undefined): boolean {
  if (request_uri === undefined) return false;
  return (Array.isArray(request_uri) ? request_uri : [request_uri]).some((value) => value.startsWith(REQUEST_URI_PREFIX));
}

/** Whether requests of `client` must be pushed (RFC 9126 §5 server-wide, §6 per client; FAPI 2.0 §5.3.2.2, fapi.ts). */
export function requires_par(idp: Provider, client: ClientRow): boolean {
  return idp.config.par.required || client.metadata.require_pushed_authorization_requests === true || is_fapi(idp, client);
}

function expired(): PageError {
  return new PageError(
    "This sign-in request has expired",
    "The application's sign-in request was already used or has expired. Go back to the application and start signing in again.",
    "invalid_request_uri",
  );
}

/**
 * RFC 9126 §4: the parameters pushed by `client` under `request_uri`, consumed (single use). A
 * reference that is unknown, expired, used or another client's is a page (there is
 * no verified redirect URI to send the error to).
 */
export async function pushed_params(idp: Provider, client: ClientRow, request_uri: string | string[]): Promise<RawParams> {
  if (typeof request_uri !== "string") throw new PageError("The application sent an invalid request", "request_uri was sent more than once.", "invalid_request");
  const reference = request_uri.slice(REQUEST_URI_PREFIX.length);
  if (reference === "" || reference.length > 128) throw expired();
  const row = await idp.store.consume_pushed_request(sha256(reference), client.client_id, idp.now());
  if (row === null) throw expired();
  return { ...row.params };
}
