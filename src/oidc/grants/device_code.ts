/**
 * The device authorization grant at the token endpoint (RFC 8628 §3.4, §3.5): the device polls
 * with its device_code until the user has decided. Each poll is decided atomically by the store
 * (store/device_poll.ts): too soon after the last one, slow_down (and the interval
 * grows by 5 seconds); undecided, authorization_pending; denied, access_denied; past its
 * lifetime, expired_token. An approval is redeemed by exactly one poll and issued the same
 * tokens as an authorization code (grants/authorization_code.ts `issue_user_tokens`); a device
 * code used again is invalid_grant.
 */
import { record_event } from "../audit.ts";
import { secret_key } from "../crypto/secrets.ts";
import { OAuthError } from "../errors.ts";
import { issue_user_tokens } from "./authorization_code.ts";
import type { GrantContext, TokenResponse } from "./types.ts";

export async function device_code_grant(ctx: GrantContext): Promise<TokenResponse> {
  const { idp, client, params, now } = ctx;
  if (params.device_code === undefined || params.device_code === "") throw new OAuthError("invalid_request", "device_code is required");
  // RFC 8628 §3.4: the device_code was issued to this client (another client's poll finds nothing).
  const result = await idp.store.poll_device_authorization(secret_key(params.device_code), client.client_id, now);
  switch (result.status) {
    case "not_found":
      throw new OAuthError("invalid_grant", "the device_code is invalid");
    case "expired":
      throw new OAuthError("expired_token", "the device_code has expired: start a new device authorization");
    case "denied":
      throw new OAuthError("access_denied", "the user denied the request");
    case "used":
      // RFC 8628 §3.5 with RFC 6749 §4.1.2: a device code yields tokens once.
      await record_event(idp, { type: "device_code_reuse", outcome: "failure", user_id: result.authorization.user_id, client_id: client.client_id, ip: ctx.ip });
      throw new OAuthError("invalid_grant", "the device_code was already used");
    case "pending":
      if (result.slow_down) throw new OAuthError("slow_down", `polling too fast: wait at least ${result.authorization.poll_interval} seconds between requests`);
      throw new OAuthError("authorization_pending", "the user has not yet approved the request");
    case "approved": {
      const authorization = result.authorization;
      const user_id = authorization.user_id;
      if (user_id === null) throw new OAuthError("invalid_grant", "the device authorization has no user");
      return issue_user_tokens(ctx, {
        client_id: authorization.client_id,
        user_id,
        scope: authorization.scope,
        grant_id: authorization.grant_id,
        session_id_hash: authorization.session_id_hash,
        auth_time: authorization.auth_time ?? now,
        acr: authorization.acr,
        amr: authorization.amr ?? [],
        nonce: null,
        claims: authorization.claims,
      });
    }
  }
}
