/**
 * Token exchange (RFC 8693): a client trades an access token of ours (the subject token) for a
 * new access token for one registered resource (RFC 8707), either acting as the subject
 * (impersonation: no actor_token) or on its behalf, the actor named in the `act` claim
 * (delegation: actor_token, §4.1). Only under the client's operator-set policy
 * (`idp clients add|update --token-exchange…`, never dynamic registration): which clients'
 * tokens it may exchange, which of the two modes, and which resources it may target.
 *
 * Token types: only our access tokens (`urn:ietf:params:oauth:token-type:access_token`), as
 * subject and actor, and only an access token is issued. ID Tokens are not accepted as subject
 * tokens: they are for the client they were issued to, not a credential to trade.
 *
 * The new token keeps the subject's grant, family and session, so whatever revokes the subject's
 * authorization (logout, a refresh token's replay, a code's reuse) revokes it too. No refresh
 * token (§2.2.1 allows one; an exchange is asked again when its token expires). Every exchange,
 * granted or refused by the policy, is in the audit log.
 */
import { record_event } from "../audit.ts";
import { OAuthError } from "../errors.ts";
import { registered_resource, resource_scopes, resource_values } from "../tokens/resources.ts";
import { split_scope } from "../claims/scopes.ts";
import { is_active_user } from "../accounts/account_status.ts";
import { find_token, issue_access_token, token_state } from "../tokens/access_and_refresh.ts";
import { token_type } from "../tokens/dpop.ts";
import type { JsonObject, TokenRow } from "../../store/types.ts";
import type { GrantContext, TokenResponse } from "./types.ts";

export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** An active access token of ours, else invalid_grant naming the parameter (§2.2.2). */
async function our_access_token(ctx: GrantContext, value: string, name: "subject_token" | "actor_token"): Promise<TokenRow> {
  const token = await find_token(ctx.idp, value);
  if (token === null || token.kind !== "access") throw new OAuthError("invalid_grant", `${name} is not an access token issued by this provider`);
  const state = token_state(token, ctx.now);
  if (state !== "active") throw new OAuthError("invalid_grant", `${name} is ${state}`);
  // A token of a user who is no longer active is worth nothing (accounts/account_status.ts).
  if (token.user_id !== null && !is_active_user(await ctx.idp.store.get_user_by_id(token.user_id))) throw new OAuthError("invalid_grant", `${name}'s user is not active`);
  return token;
}

function check_type(value: string | undefined, name: string): void {
  if (value === undefined || value === "") throw new OAuthError("invalid_request", `${name} is required`);
  // RFC 8693 §2.2.2: an unsupported token type is invalid_request.
  if (value !== ACCESS_TOKEN_TYPE) throw new OAuthError("invalid_request", `${name} ${value} is not supported; use ${ACCESS_TOKEN_TYPE}`);
}

export async function token_exchange_grant(ctx: GrantContext): Promise<TokenResponse> {
  const { idp, client, params, now } = ctx;
  if (params.subject_token === undefined || params.subject_token === "") throw new OAuthError("invalid_request", "subject_token is required");
  check_type(params.subject_token_type, "subject_token_type");
  if (params.requested_token_type !== undefined) check_type(params.requested_token_type, "requested_token_type");
  const delegation = params.actor_token !== undefined && params.actor_token !== "";
  // RFC 8693 §2.1: actor_token_type is REQUIRED with actor_token and MUST NOT be sent without it.
  if (delegation) check_type(params.actor_token_type, "actor_token_type");
  else if (params.actor_token_type !== undefined) throw new OAuthError("invalid_request", "actor_token_type was sent without actor_token");

  const policy = client.metadata.token_exchange;
  const refuse = async (reason: string, details: JsonObject = {}): Promise<never> => {
    await record_event(idp, { type: "token_exchange", outcome: "failure", client_id: client.client_id, ip: ctx.ip, at: now, details: { reason, ...details } });
    throw new OAuthError("unauthorized_client", reason);
  };
  if (policy === undefined) return refuse("this client has no token exchange policy");
  const mode = delegation ? "delegation" : "impersonation";
  if (!policy[mode]) return refuse(`this client may not use token exchange for ${mode}`);

  const subject = await our_access_token(ctx, params.subject_token, "subject_token");
  if (!policy.subject_clients.includes("*") && !policy.subject_clients.includes(subject.client_id)) {
    return refuse("this client may not exchange tokens issued to the subject token's client", { subject_client: subject.client_id });
  }
  const actor = delegation ? await our_access_token(ctx, params.actor_token!, "actor_token") : null;

  // RFC 8693 §2.1: audience names the target by a logical name; here the names are the
  // registered resources' URIs, so it is one more way to say resource.
  const targets = [...new Set([...resource_values(params.resource), ...resource_values(params.audience)])];
  if (targets.length === 0) throw new OAuthError("invalid_target", "resource (or audience) is required: name the registered resource the new token is for");
  const resource = await registered_resource(idp, targets);
  if (resource === null || !policy.resources.includes(resource.uri)) {
    await record_event(idp, {
      type: "token_exchange",
      outcome: "failure",
      client_id: client.client_id,
      ip: ctx.ip,
      at: now,
      details: { reason: "resource not allowed", resource: targets[0]! },
    });
    throw new OAuthError("invalid_target", `this client may not exchange tokens for resource ${targets[0]}`);
  }

  // The new scope never exceeds the subject token's (RFC 8693 §2.1 scope), then what the resource accepts.
  const held = split_scope(subject.scope);
  let scopes = held;
  if (params.scope !== undefined) {
    const wanted = split_scope(params.scope);
    const extra = wanted.filter((scope) => !held.includes(scope));
    if (extra.length > 0) throw new OAuthError("invalid_scope", `the subject token does not carry: ${extra.join(" ")}`);
    scopes = wanted;
  }
  const scope = resource_scopes(resource, scopes).join(" ");
  // A token that carries nothing would only let the client probe which subject tokens are live.
  if (scope === "") throw new OAuthError("invalid_scope", `resource ${resource.uri} accepts none of the scopes asked for`);

  // RFC 8693 §4.1: act names the actor; a subject token that was itself delegated keeps its
  // chain under it (the prior actors, most recent outermost).
  let act: JsonObject | null = null;
  if (actor !== null) {
    act = { sub: actor.user_id ?? actor.client_id, client_id: actor.client_id };
    if (subject.act !== null) act.act = subject.act;
  } else if (subject.act !== null) {
    act = subject.act;
  }

  const issued = await issue_access_token(
    idp,
    client,
    {
      client_id: client.client_id,
      user_id: subject.user_id,
      scope,
      grant_id: subject.grant_id,
      family_id: subject.family_id,
      session_id_hash: subject.session_id_hash,
      auth_time: subject.auth_time,
      acr: subject.acr,
      amr: subject.amr,
      nonce: null,
      claims: null,
      jkt: ctx.dpop_jkt,
      act,
    },
    now,
    resource,
  );
  await record_event(idp, {
    type: "token_exchange",
    outcome: "success",
    user_id: subject.user_id,
    client_id: client.client_id,
    ip: ctx.ip,
    at: now,
    details: { mode, subject_client: subject.client_id, actor_client: actor?.client_id ?? null, resource: resource.uri, scope },
  });
  const body: TokenResponse = { access_token: issued.token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: token_type(ctx.dpop_jkt), expires_in: issued.expires_in };
  if (scope !== "") body.scope = scope;
  return body;
}
