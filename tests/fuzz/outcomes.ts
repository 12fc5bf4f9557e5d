/**
 * What an answer of the authorization endpoint may be, whatever was sent (OIDC Core §3.1.2.6,
 * RFC 6749 §4.1.2.1, RFC 9207; JARM: the same parameters inside the `response` JWT): used by the
 * /authorize property tests.
 */
import { decodeJwt } from "jose";
import { read_form_post } from "../http/authorize_helpers.ts";
import { CALLBACK, ISSUER, PROTOCOL_ERRORS } from "../security/helpers.ts";

export type Outcome = "login page" | "error redirect" | "form_post error" | "error page";

/** Checks one answer against the outcomes listed at the top; returns which it was. */
/** JARM: the parameters of a `response` JWT (its signature is tests/http/jwt_responses.test.ts's matter), else the parameters as sent. */
function unwrapped(params: URLSearchParams): URLSearchParams {
  const jwt = params.get("response");
  if (jwt === null) return params;
  const claims = decodeJwt(jwt);
  return new URLSearchParams(Object.entries(claims).map(([name, value]) => [name, String(value)]));
}

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
    const sent = unwrapped(url.searchParams);
    if (sent.has("code") || sent.has("access_token") || url.hash !== "") throw fail("credentials without a sign-in");
    if (!PROTOCOL_ERRORS.has(sent.get("error") ?? "")) throw fail("redirect without a protocol error");
    if (sent.get("iss") !== ISSUER) throw fail("error redirect without iss (RFC 9207)");
    return "error redirect";
  }
  if (location !== null) throw fail("Location on a non-redirect");
  if (response.status === 200) {
    const { action, params: posted } = read_form_post(body);
    const params = unwrapped(posted);
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
