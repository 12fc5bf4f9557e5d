/**
 * Validation of an authorization request (OIDC Core §3.1.2.1, §3.1.2.2), in the order that
 * decides where errors go: first the client, its request object (OIDC Core §6.1) and its
 * redirect URI — until the redirect URI is verified, errors are a page and never a redirect
 * (RFC 6749 §4.1.2.1) — then everything else, whose errors go to the verified redirect URI in the
 * requested response mode.
 *
 * `ui_locales` chooses the pages' language (ui/catalogs.ts). Accepted and not acted on: `display` (one
 * page design fits every display) and `claims_locales` (no claim is stored in several languages:
 * README, "Languages"); see `needs_step_up` for acr_values
 * (the client's default_acr_values when the request has none).
 */
import { allows_grant, allows_response_type, has_redirect_uri, is_public } from "../clients/metadata.ts";
import { expected_sub, parse_claims_request, type ClaimsRequest } from "../claims/request.ts";
import { AuthorizationError, PageError } from "../errors.ts";
import { fapi_metadata_problem, fapi_redirect_problem, is_fapi } from "../clients/fapi.ts";
import type { AuthorizationRequest, ResponseMode } from "./interactions.ts";
import { check_challenge } from "./pkce.ts";
import type { Provider } from "../provider.ts";
import { with_request_object, type RawParams } from "./request_object.ts";
import { is_pushed_reference, pushed_params, requires_par } from "./request_uri.ts";
import { authorize_resources } from "../tokens/resources.ts";
import { attribute_scopes, load_attribute_catalog } from "../attributes/claims.ts";
import { check_scope } from "../claims/scopes.ts";
import { parse_locales } from "../ui/catalogs.ts";
import { JARM_MODES } from "../tokens/jwt_responses.ts";
import { verify_id_token_hint } from "../tokens/id_token_hint.ts";
import type { ClientRow } from "../../store/types.ts";
import { annotate_request } from "../ops/tracing.ts";

export type { RawParams } from "./request_object.ts";

/** A parameter sent once, or undefined; repeated ones are reported by `validate_request`. */
function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  return typeof value === "string" ? value : undefined;
}

/** Where errors go once the redirect URI is verified. */
export type Target = { client: ClientRow; redirect_uri: string; state: string | null; response_mode: ResponseMode };

/** The verified target, the parameters (request object merged in), and an error to send there. */
export type Resolved = { target: Target; params: RawParams; error: AuthorizationError | null };

const INCOMPLETE = "The application sent an incomplete request";

async function find_client(idp: Provider, client_id: string | string[] | undefined): Promise<ClientRow> {
  if (typeof client_id !== "string" || client_id === "") {
    throw new PageError(
      INCOMPLETE,
      Array.isArray(client_id) ? "client_id was sent more than once." : "The request has no client_id, so we cannot tell which application asked you to sign in.",
    ).for_log({ parameter: "client_id" });
  }
  const client = await idp.store.get_client(client_id);
  if (client === null) {
    throw new PageError(
      "Unknown application",
      "The application that sent you here is not registered with this sign-in service. Contact the application's support.",
      "invalid_client",
    ).for_log({ parameter: "client_id", value: client_id });
  }
  annotate_request({ "idp.client_id": client.client_id });
  return client;
}

function is_registered(client: ClientRow, redirect_uri: string | string[] | undefined): redirect_uri is string {
  return typeof redirect_uri === "string" && redirect_uri !== "" && has_redirect_uri(client, redirect_uri);
}

/** Step 1: the client, its request object and the redirect URI. Errors here are pages. */
export async function resolve_target(idp: Provider, sent: RawParams): Promise<Resolved> {
  const client = await find_client(idp, sent.client_id);
  // RFC 9126 §4: with a pushed request's request_uri, its parameters are the request, and only
  // they (anything else in the query is ignored); consumed here, once. Any other request_uri
  // is refused by with_request_object (request_uri_not_supported).
  const pushed = is_pushed_reference(sent.request_uri);
  const query = pushed ? await pushed_params(idp, client, sent.request_uri!) : sent;
  let params = query;
  let error: AuthorizationError | null = null;
  try {
    // FAPI 2.0 §5.3.2.2: requests are pushed, so a request object by value at /authorize is
    // refused unread (to the query's redirect URI when registered, else as a page, as below).
    if (!pushed && query.request !== undefined && is_fapi(idp, client)) {
      throw new AuthorizationError("invalid_request", "request objects must be sent to the pushed authorization request endpoint (PAR) under FAPI 2.0, not to /authorize");
    }
    params = await with_request_object(idp, client, query);
  } catch (thrown) {
    if (!(thrown instanceof AuthorizationError)) throw thrown;
    // Only the query's own redirect URI can receive the error of an unusable request object.
    if (!is_registered(client, query.redirect_uri)) {
      throw new PageError("The application sent an invalid request", `The sign-in request could not be read: ${thrown.description}.`, thrown.error).for_log({
        client_id: client.client_id,
        parameter: "request",
      });
    }
    error = thrown;
  }
  const redirect_uri = params.redirect_uri;
  // OIDC Core §3.1.2.1: redirect_uri is REQUIRED and MUST exactly match a registered one.
  if (typeof redirect_uri !== "string" || redirect_uri === "") {
    throw new PageError(
      INCOMPLETE,
      Array.isArray(redirect_uri) ? "redirect_uri was sent more than once." : "The request has no redirect_uri, so we cannot tell where to send you back.",
    ).for_log({ client_id: client.client_id, parameter: "redirect_uri" });
  }
  if (!has_redirect_uri(client, redirect_uri)) {
    throw new PageError(
      "This return address is not registered",
      "The application asked to send you back to an address it has not registered, so we stopped here to protect your account. Contact the application's support.",
    ).for_log({
      client_id: client.client_id,
      parameter: "redirect_uri",
      value: redirect_uri,
    });
  }
  // Errors use the requested response mode once it is a supported one (an unsupported one is
  // itself reported, by query, in step 2).
  const response_mode = requested_response_mode(single(params, "response_mode"));
  // RFC 9126 §5, §6: the server or the client requires pushed requests; the redirect URI is
  // registered, so the refusal goes to the client.
  if (error === null && !pushed && requires_par(idp, client)) {
    error = new AuthorizationError("invalid_request", "authorization requests of this client must be pushed to the pushed authorization request endpoint (PAR)");
  }
  return { target: { client, redirect_uri, state: single(params, "state") ?? null, response_mode }, params, error };
}

const PROMPTS = new Set(["none", "login", "consent", "select_account"]);
/** OAuth 2.0 Form Post Response Mode, and JARM §2.3 (jwt_responses.ts). */
export const RESPONSE_MODES: readonly ResponseMode[] = ["query", "form_post", ...JARM_MODES];

/** The mode errors and the response use: the requested one when supported, else query (its error then goes by query). */
export function requested_response_mode(mode: string | undefined): ResponseMode {
  return mode !== undefined && (RESPONSE_MODES as readonly string[]).includes(mode) ? (mode as ResponseMode) : "query";
}

/** A whole number of seconds, as max_age is sent (a string in a query, a number in a request object). */
function parse_max_age(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^\d{1,10}$/.test(raw)) throw new AuthorizationError("invalid_request", "max_age must be a non-negative integer (seconds)");
  return Number(raw);
}

/**
 * OIDC Core §3.1.2.1 id_token_hint: an ID Token we issued (expired ones too), never another JWT
 * of ours (tokens/id_token_hint.ts); its sub.
 */
async function hinted_sub(idp: Provider, hint: string | undefined): Promise<string | null> {
  if (hint === undefined || hint === "") return null;
  const checked = await verify_id_token_hint(idp, hint).catch(() => null);
  // A hint we cannot verify is never trusted.
  if (checked === null || !checked.ok) throw new AuthorizationError("invalid_request", "id_token_hint is not a valid ID Token issued by this provider");
  return checked.hint.sub;
}

/**
 * FAPI 2.0 Security Profile (fapi.ts): the client's registration must meet it (a client older
 * than the server-wide switch may not), the redirect URI is https (§5.3.2.2 item 6), and the
 * response goes by query or JARM.
 */
function check_fapi_request(idp: Provider, client: ClientRow, redirect_uri: string, mode: string | undefined): void {
  const problem = fapi_metadata_problem(client.metadata, idp.keys.signing_algs());
  if (problem !== null) throw new AuthorizationError("unauthorized_client", `this client's registration does not meet FAPI 2.0: ${problem.field} ${problem.message}`);
  const redirect_problem = fapi_redirect_problem(redirect_uri, client.metadata.application_type);
  if (redirect_problem !== null) throw new AuthorizationError("invalid_request", `redirect_uri ${redirect_problem}`);
  if (mode !== undefined && !FAPI_RESPONSE_MODES.includes(mode))
    throw new AuthorizationError("invalid_request", `response_mode ${mode} is not allowed under FAPI 2.0; use ${FAPI_RESPONSE_MODES.join(", ")}`);
}

/** FAPI 2.0 §5.3.2.2: the code by query with iss (RFC 9207), or as a JARM response. */
export const FAPI_RESPONSE_MODES: readonly string[] = ["query", ...JARM_MODES];

/** Step 2: everything else. Errors here go back to the client (AuthorizationError). */
export async function validate_request(idp: Provider, target: Target, params: RawParams): Promise<AuthorizationRequest> {
  const { client, redirect_uri, state, response_mode } = target;
  // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
  // RFC 8707 §2: except `resource`, which may be repeated to name several resources.
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value) && name !== "resource") throw new AuthorizationError("invalid_request", `${name} was sent more than once`);
  }
  const mode = single(params, "response_mode");
  if (mode !== undefined && !(RESPONSE_MODES as readonly string[]).includes(mode))
    throw new AuthorizationError("invalid_request", `response_mode ${mode} is not supported; use one of ${RESPONSE_MODES.join(", ")}`);

  const response_type = single(params, "response_type");
  if (response_type === undefined || response_type === "") throw new AuthorizationError("invalid_request", "response_type is required");
  if (response_type !== "code") throw new AuthorizationError("unsupported_response_type", `response_type ${response_type} is not supported; use code`);
  if (!allows_response_type(client, "code") || !allows_grant(client, "authorization_code")) {
    throw new AuthorizationError("unauthorized_client", "this client is not registered for the authorization code flow");
  }

  // RFC 8707 §2: every resource must be registered, else invalid_target on the redirect; a client
  // without a scope list may ask for the scopes the named resources accept (scopes.ts).
  const resources = await authorize_resources(idp, params.resource);
  // The scopes of the operator's attributes are granted like a resource's (attributes/claims.ts).
  const scope = check_scope(single(params, "scope"), client.metadata, [
    ...resources.flatMap((resource) => resource.scopes),
    ...attribute_scopes(await load_attribute_catalog(idp.store)),
  ]);
  if (!scope.ok) throw new AuthorizationError(scope.error, scope.description);
  // OIDC Core §11: offline_access is ignored unless a refresh token can follow — here, unless the
  // client is registered for the refresh_token grant — so the consent page never promises it.
  const scopes = allows_grant(client, "refresh_token") ? scope.scopes : scope.scopes.filter((s) => s !== "offline_access");
  if (scopes.length === 0) throw new AuthorizationError("invalid_scope", "offline_access alone is ignored for a client not registered for the refresh_token grant");

  const fapi = is_fapi(idp, client);
  if (fapi) check_fapi_request(idp, client, redirect_uri, mode);
  // RFC 7636 §4.4.1; RFC 9700 §2.1.1: PKCE is mandatory for public clients; FAPI 2.0 §5.3.2.2: for every FAPI client.
  const pkce = check_challenge(single(params, "code_challenge"), single(params, "code_challenge_method"), is_public(client) || fapi);
  if (!pkce.ok) throw new AuthorizationError("invalid_request", pkce.description);

  const prompt = (single(params, "prompt") ?? "").split(" ").filter(Boolean);
  const unknown = prompt.find((p) => !PROMPTS.has(p));
  if (unknown !== undefined) throw new AuthorizationError("invalid_request", `unsupported prompt value ${unknown}`);
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (prompt.includes("none") && prompt.length > 1) throw new AuthorizationError("invalid_request", "prompt=none cannot be combined with other values");

  // OIDC Registration §2: default_max_age applies when the request has no max_age.
  const default_max_age = client.metadata.default_max_age;
  const max_age = parse_max_age(single(params, "max_age")) ?? (typeof default_max_age === "number" && default_max_age >= 0 ? default_max_age : null);

  const claims_raw = single(params, "claims");
  const claims: ClaimsRequest | null = claims_raw === undefined || claims_raw === "" ? null : parse_claims_request(claims_raw);

  const hint_sub = await hinted_sub(idp, single(params, "id_token_hint"));
  const claims_sub = expected_sub(claims);
  if (hint_sub !== null && claims_sub !== null && hint_sub !== claims_sub) {
    throw new AuthorizationError("invalid_request", "id_token_hint and the sub of the claims request name different users");
  }

  // OIDC Registration §2: default_acr_values applies when the request has no acr_values.
  const acr_values = (single(params, "acr_values") ?? "").split(" ").filter(Boolean);
  const default_acr_values = client.metadata.default_acr_values;
  if (acr_values.length === 0 && Array.isArray(default_acr_values)) acr_values.push(...default_acr_values.filter((value) => typeof value === "string"));

  // RFC 9449 §10: dpop_jkt binds the code to a DPoP key (a JWK SHA-256 thumbprint, base64url).
  const dpop_jkt = single(params, "dpop_jkt");
  if (dpop_jkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(dpop_jkt))
    throw new AuthorizationError("invalid_request", "dpop_jkt must be a base64url SHA-256 JWK thumbprint (43 characters)");

  const login_hint = single(params, "login_hint")?.trim() ?? "";
  const nonce = single(params, "nonce");
  return {
    client_id: client.client_id,
    redirect_uri,
    response_mode,
    scopes,
    state,
    nonce: nonce === undefined || nonce === "" ? null : nonce,
    code_challenge: pkce.challenge,
    code_challenge_method: pkce.method,
    prompt,
    max_age,
    expected_sub: hint_sub ?? claims_sub,
    // A hint, not an input: one that cannot be a username is dropped.
    login_hint: login_hint === "" || login_hint.length > 256 ? null : login_hint,
    ui_locales: parse_locales(single(params, "ui_locales")),
    claims,
    acr_values,
    dpop_jkt: dpop_jkt ?? null,
    device: null,
    resources: resources.map((resource) => resource.uri),
  };
}
