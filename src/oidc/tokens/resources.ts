/**
 * Resource indicators (RFC 8707) and the resource servers an operator registered
 * (`idp resources add`). A `resource` at /authorize names the APIs the client wants tokens for;
 * each must be registered (else `invalid_target`, §2). The code and the refresh token remember
 * the authorized set; at /token a `resource` picks the one the access token is for (§2.2), and
 * that token is audience-restricted to it.
 *
 * Scope of a resource's token: the granted scopes the resource accepts (the intersection of the
 * granted scope with the resource's registered scopes). A client without a registered scope list
 * may ask for the scopes of the resources it names (claims/scopes.ts); one with a list, only those
 * of its list. OIDC scopes (openid, profile, email…)
 * are about /userinfo, our own resource: they stay in the ID Token and the refresh token, and
 * reach a resource's access token only when the resource registered them. A token audienced to
 * a resource is refused by /userinfo (it is not for us).
 *
 * Decision for a request without `resource` at /token while the authorization named several:
 * `invalid_target` (the client must say which one); with exactly one, that one is used.
 */
import { AuthorizationError, OAuthError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { ResourceServerRow } from "../../store/types.ts";

/** RFC 8707 §2: "an absolute URI … MUST NOT include a fragment component". Null when fine, else why not. */
export function resource_uri_problem(value: string): string | null {
  if (value === "") return "is empty";
  if (value.includes("#")) return "must not include a fragment (RFC 8707 §2)";
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return "must be an absolute URI (RFC 8707 §2)";
  try {
    new URL(value);
  } catch {
    return "is not a valid URI";
  }
  if (/\s/.test(value) || value.length > 2048) return "is not a valid URI";
  return null;
}

/**
 * The `resource` parameter as a list (it may repeat: RFC 8707 §2). A request object may hold
 * anything: a value that is not a string reads as "" and is refused as empty.
 */
export function resource_values(raw: unknown): string[] {
  if (raw === undefined) return [];
  const values: unknown[] = Array.isArray(raw) ? raw : [raw];
  return [...new Set(values.map((value) => (typeof value === "string" ? value : "")))];
}

type Refuse = (description: string) => Error;

const oauth_refusal: Refuse = (description) => new OAuthError("invalid_target", description);
const authorization_refusal: Refuse = (description) => new AuthorizationError("invalid_target", description);

async function registered(idp: Provider, uris: readonly string[], refuse: Refuse): Promise<ResourceServerRow[]> {
  const rows: ResourceServerRow[] = [];
  for (const uri of uris) {
    const problem = resource_uri_problem(uri);
    if (problem !== null) throw refuse(`resource ${problem}`);
    const row = await idp.store.get_resource_server(uri);
    if (row === null) throw refuse(`resource ${uri} is not a registered resource server`);
    rows.push(row);
  }
  return rows;
}

/**
 * At /authorize: every requested resource must be registered (RFC 8707 §2); refused on the
 * redirect. Their rows: the scopes they accept may be asked for (claims/scopes.ts `check_scope`).
 */
export function authorize_resources(idp: Provider, raw: unknown): Promise<ResourceServerRow[]> {
  return registered(idp, resource_values(raw), authorization_refusal);
}

/** Registered resources, for the grants that take `resource` without a prior authorization (client_credentials). */
export async function registered_resource(idp: Provider, raw: string | string[] | undefined): Promise<ResourceServerRow | null> {
  const uris = resource_values(raw);
  // One audience per token: several would make a token any of them could replay at the others.
  if (uris.length > 1) throw oauth_refusal("one resource per token request; ask again for each resource");
  const [row] = await registered(idp, uris, oauth_refusal);
  return row ?? null;
}

/**
 * At /token for a grant that carries authorized resources (code, refresh token): the one the
 * access token is for. RFC 8707 §2.2: it must be among those the grant was authorized for.
 */
export async function narrow_resource(idp: Provider, authorized: readonly string[] | null, raw: string | string[] | undefined): Promise<ResourceServerRow | null> {
  const uris = resource_values(raw);
  if (uris.length > 1) throw oauth_refusal("one resource per token request; ask again for each resource");
  const granted = authorized ?? [];
  let uri = uris[0];
  if (uri === undefined) {
    if (granted.length === 0) return null;
    if (granted.length > 1) throw oauth_refusal("the authorization names several resources: send resource to say which one this token is for");
    uri = granted[0]!;
  }
  const problem = resource_uri_problem(uri);
  if (problem !== null) throw oauth_refusal(`resource ${problem}`);
  if (!granted.includes(uri)) throw oauth_refusal(`resource ${uri} was not authorized for this grant`);
  const [row] = await registered(idp, [uri], oauth_refusal);
  return row!;
}

/** The scope of a resource's access token: the granted scopes the resource accepts. */
export function resource_scopes(resource: ResourceServerRow, granted: readonly string[]): string[] {
  return granted.filter((scope) => resource.scopes.includes(scope));
}
