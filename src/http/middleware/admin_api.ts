/**
 * Around everything under /admin/api (mounted only when IDP_ADMIN_API is on), whatever answers:
 * - the caller is the client of an access token with the `admin` scope (oidc/admin/auth.ts),
 *   sent as Bearer, or as DPoP with a proof of its key when the token is DPoP-bound (RFC 9449
 *   §7.1), checked before any endpoint runs; only the OpenAPI document is public (it holds no data);
 * - `Cache-Control: no-store` on every answer (the answers hold personal data);
 * - every error as a problem document (RFC 9457, http/problems.ts), framework errors included;
 * - every authenticated call audited (`admin_api`: the client that called, method, path, status,
 *   the user or client it acted on, the action), reads included: an administrator's reads of
 *   personal data are as much the audit log's business as their changes; so is a known client's
 *   token refused (outcome failure). Never a secret: the query string and bodies are not recorded.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { record_event } from "../../oidc/audit.ts";
import { AdminTokenRefused, admin_actor, type AdminActor, type AdminCredentials } from "../../oidc/admin/auth.ts";
import { bearer_credentials, dpop_credentials } from "../../oidc/tokens/bearer.ts";
import { nonce_to_send, resource_request_proof } from "../../oidc/tokens/dpop.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { problem_of, problem_response } from "../problems.ts";
import { client_ip } from "./proxy.ts";

export const ADMIN_API_PREFIX = "/admin/api";
export const ADMIN_API = `${ADMIN_API_PREFIX}/v1`;
export const OPENAPI_PATH = `${ADMIN_API}/openapi.json`;

/** What an endpoint acted on, for the audit event (state key `admin_target`). */
export type AdminTarget = { action: string; user_id?: string | null; client_id?: string | null; details?: JsonObject };

/**
 * The token of the Authorization header, Bearer (RFC 6750 §2.1) or DPoP (RFC 9449 §7.1), and for
 * DPoP the verified proof of this request: `htm` the method, `htu` the issuer and the path (never
 * the Host header), `ath` naming the token. Null without credentials. Shared with SCIM (middleware/scim.ts).
 */
export async function admin_credentials(idp: Provider, context: Context): Promise<AdminCredentials | null> {
  const realm = idp.config.issuer;
  const authorization = context.headers.get("authorization");
  const dpop_token = dpop_credentials(authorization, realm);
  const token = dpop_token ?? bearer_credentials(authorization, realm);
  if (token === null) return null;
  if (dpop_token === null) return { token, proof: null };
  const target = { htm: context.request.method, htu: `${realm}${context.request.path}`, access_token: token };
  return { token, proof: await resource_request_proof(idp, context.headers.get("dpop"), target, realm) };
}

export class AdminApiHandler extends Fw.Handler {
  constructor(private readonly idp: Provider) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const path = context.request.path;
    if (path !== ADMIN_API_PREFIX && !path.startsWith(`${ADMIN_API_PREFIX}/`)) return next();
    context.response.headers.set("cache-control", "no-store");
    let actor: AdminActor | undefined;
    let response: Response;
    try {
      if (path !== OPENAPI_PATH) {
        const credentials = await admin_credentials(this.idp, context);
        actor = await admin_actor(this.idp, credentials);
        context.state.admin_actor = actor;
        if (credentials?.proof != null) {
          // RFC 9449 §8: with nonces required, answers to DPoP requests carry the current one.
          const nonce = await nonce_to_send(this.idp);
          if (nonce !== undefined) context.response.headers.set("dpop-nonce", nonce);
        }
      }
      response = await next();
    } catch (thrown) {
      if (thrown instanceof AdminTokenRefused) actor = { client_id: thrown.client_id, client_name: null };
      response = this.problem(thrown, context);
    }
    if (actor !== undefined) await this.audit(context, actor, response.status);
    return response;
  }

  private problem(thrown: unknown, context: Context): Response {
    const problem = problem_of(thrown);
    if (problem !== null) return problem_response(problem, context);
    // A bug: its stack goes to the log with the request id, never to the client.
    Fw.log_unhandled(thrown, context);
    return problem_response({ status: 500, code: "internal_server_error", detail: "Internal server error", headers: {} }, context);
  }

  private async audit(context: Context, actor: AdminActor, status: number): Promise<void> {
    const target = context.state.admin_target as AdminTarget | undefined;
    await record_event(this.idp, {
      type: "admin_api",
      outcome: status < 400 ? "success" : "failure",
      client_id: actor.client_id,
      user_id: target?.user_id ?? null,
      ip: client_ip(context, this.idp.config),
      details: {
        method: context.request.method,
        path: context.request.path,
        status,
        ...(target !== undefined && { action: target.action }),
        ...(target?.client_id != null && { target_client_id: target.client_id }),
        ...(target?.details ?? {}),
      },
    });
  }
}
