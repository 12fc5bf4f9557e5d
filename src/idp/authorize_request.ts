/**
 * Validation of an authorization request (OIDC Core §3.1.2.1, §3.1.2.2), in the order that
 * decides where errors go: first the client and its redirect URI — until both are verified,
 * errors are a page and never a redirect (RFC 6749 §4.1.2.1) — then everything else, whose errors
 * are sent to the verified redirect URI.
 */
import { allows_grant, allows_response_type, has_redirect_uri, is_public } from "./clients.ts";
import { AuthorizationError, PageError } from "./errors.ts";
import type { AuthorizationRequest } from "./interactions.ts";
import { check_challenge } from "./pkce.ts";
import type { Provider } from "./provider.ts";
import { check_scope } from "./scopes.ts";
import type { ClientRow } from "./store/types.ts";

export type RawParams = Record<string, string | string[] | undefined>;

/** A parameter sent once, or undefined; repeated ones are reported by `repeated()`. */
function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  return typeof value === "string" ? value : undefined;
}

export type Target = { client: ClientRow; redirect_uri: string; state: string | null };

/** Step 1: the client and the redirect URI. Errors here are pages. */
export async function resolve_target(idp: Provider, params: RawParams): Promise<Target> {
  const client_id = params.client_id;
  if (typeof client_id !== "string" || client_id === "") {
    throw new PageError("The application sent an incomplete request", Array.isArray(client_id) ? "client_id was sent more than once." : "The request has no client_id, so we cannot tell which application asked you to sign in.");
  }
  const client = await idp.store.getClient(client_id);
  if (client === null) {
    throw new PageError("Unknown application", "The application that sent you here is not registered with this sign-in service. Contact the application's support.", 400, "invalid_client");
  }
  const redirect_uri = params.redirect_uri;
  // OIDC Core §3.1.2.1: redirect_uri is REQUIRED and MUST exactly match a registered one.
  if (typeof redirect_uri !== "string" || redirect_uri === "") {
    throw new PageError("The application sent an incomplete request", Array.isArray(redirect_uri) ? "redirect_uri was sent more than once." : "The request has no redirect_uri, so we cannot tell where to send you back.");
  }
  if (!has_redirect_uri(client, redirect_uri)) {
    throw new PageError("This return address is not registered", "The application asked to send you back to an address it has not registered, so we stopped here to protect your account. Contact the application's support.");
  }
  const state = single(params, "state") ?? null;
  return { client, redirect_uri, state };
}

const PROMPTS = new Set(["none", "login", "consent", "select_account"]);

/** Step 2: everything else. Errors here go back to the client (AuthorizationError). */
export function validate_request(target: Target, params: RawParams): AuthorizationRequest {
  const { client, redirect_uri, state } = target;
  // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
  for (const [name, value] of Object.entries(params)) {
    if (Array.isArray(value)) throw new AuthorizationError("invalid_request", `${name} was sent more than once`);
  }
  // OIDC Core §6: request objects are not supported (advertised as such in discovery).
  if (params.request !== undefined) throw new AuthorizationError("request_not_supported", "request objects are not supported");
  if (params.request_uri !== undefined) throw new AuthorizationError("request_uri_not_supported", "request_uri is not supported");
  const response_mode = single(params, "response_mode");
  if (response_mode !== undefined && response_mode !== "query") throw new AuthorizationError("invalid_request", `response_mode ${response_mode} is not supported; use query`);

  const response_type = single(params, "response_type");
  if (response_type === undefined || response_type === "") throw new AuthorizationError("invalid_request", "response_type is required");
  if (response_type !== "code") throw new AuthorizationError("unsupported_response_type", `response_type ${response_type} is not supported; use code`);
  if (!allows_response_type(client, "code") || !allows_grant(client, "authorization_code")) {
    throw new AuthorizationError("unauthorized_client", "this client is not registered for the authorization code flow");
  }

  const scope = check_scope(single(params, "scope"), client.metadata);
  if (!scope.ok) throw new AuthorizationError(scope.error, scope.description);

  // RFC 7636 §4.4.1; RFC 9700 §2.1.1: PKCE is mandatory for public clients.
  const pkce = check_challenge(single(params, "code_challenge"), single(params, "code_challenge_method"), is_public(client));
  if (!pkce.ok) throw new AuthorizationError("invalid_request", pkce.description);

  const prompt = (single(params, "prompt") ?? "").split(" ").filter(Boolean);
  const unknown = prompt.find((p) => !PROMPTS.has(p));
  if (unknown !== undefined) throw new AuthorizationError("invalid_request", `unsupported prompt value ${unknown}`);
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (prompt.includes("none") && prompt.length > 1) throw new AuthorizationError("invalid_request", "prompt=none cannot be combined with other values");

  const max_age_raw = single(params, "max_age");
  let max_age: number | null = null;
  if (max_age_raw !== undefined) {
    if (!/^\d{1,10}$/.test(max_age_raw)) throw new AuthorizationError("invalid_request", "max_age must be a non-negative integer (seconds)");
    max_age = Number(max_age_raw);
  }

  const nonce = single(params, "nonce");
  return {
    client_id: client.client_id,
    redirect_uri,
    scopes: scope.scopes,
    state,
    nonce: nonce === undefined || nonce === "" ? null : nonce,
    code_challenge: pkce.challenge,
    code_challenge_method: pkce.method,
    prompt,
    max_age,
  };
}
