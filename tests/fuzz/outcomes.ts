/**
 * What an answer of the authorization endpoint may be, whatever was sent (OIDC Core §3.1.2.6,
 * RFC 6749 §4.1.2.1, RFC 9207): used by the /authorize property tests.
 */
import { read_form_post } from "../http/authorize.helpers.ts";
import { CALLBACK, ISSUER, PROTOCOL_ERRORS } from "../security/helpers.ts";

export type Outcome = "login page" | "error redirect" | "form_post error" | "error page";

/** Checks one answer against the outcomes listed at the top; returns which it was. */
export async function classify(response: Response): Promise<Outcome> {
  const body = await response.text();
  const fail = (why: string) => new Error(`${why}: ${response.status} ${response.headers.get("location") ?? ""} ${body.slice(0, 300)}`);
  if (response.status >= 500) throw fail("server error");
  const location = response.headers.get("location");
  if (response.status === 302 || response.status === 303) {
    if (location === null) throw fail("redirect without Location");
    if (location.startsWith(`${ISSUER}/interaction/`)) return "login page";
    const url = new URL(location);
    if (`${url.origin}${url.pathname}` !== CALLBACK) throw fail("redirect to an unregistered URI");
    if (url.searchParams.has("code") || url.searchParams.has("access_token") || url.hash !== "") throw fail("credentials without a sign-in");
    if (!PROTOCOL_ERRORS.has(url.searchParams.get("error") ?? "")) throw fail("redirect without a protocol error");
    if (url.searchParams.get("iss") !== ISSUER) throw fail("error redirect without iss (RFC 9207)");
    return "error redirect";
  }
  if (location !== null) throw fail("Location on a non-redirect");
  if (response.status === 200) {
    const { action, params } = read_form_post(body);
    if (action !== CALLBACK && !action.startsWith(`${CALLBACK}?`)) throw fail("form_post to an unregistered URI");
    if (!PROTOCOL_ERRORS.has(params.get("error") ?? "") || params.get("iss") !== ISSUER || params.has("code")) throw fail("form_post without a protocol error and iss");
    return "form_post error";
  }
  if (response.status >= 400 && response.status < 500) {
    if (!response.headers.get("content-type")?.startsWith("text/html")) throw fail("error page that is not HTML");
    return "error page";
  }
  throw fail("unexpected status");
}
