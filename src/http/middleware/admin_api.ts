/**
 * Around everything under /admin/api (mounted only when IDP_ADMIN_API is on), whatever answers:
 * - the caller is the client of a Bearer token with the `admin` scope (oidc/admin/auth.ts),
 *   checked before any endpoint runs; only the OpenAPI document is public (it holds no data);
 * - `Cache-Control: no-store` on every answer (the answers hold personal data);
 * - every error as a problem document (RFC 9457, http/problems.ts), framework errors included;
 * - every authenticated call audited (`admin_api`: the client that called, method, path, status,
 *   the user or client it acted on, the action), reads included: an administrator's reads of
 *   personal data are as much the audit log's business as their changes; so is a known client's
 *   token refused (outcome failure). Never a secret: the query string and bodies are not recorded.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { record_event } from "../../oidc/audit.ts";
import { AdminTokenRefused, admin_actor, type AdminActor } from "../../oidc/admin/auth.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { problem_of, problem_response } from "../problems.ts";
import { client_ip } from "./proxy.ts";

export const ADMIN_API_PREFIX = "/admin/api";
export const ADMIN_API = `${ADMIN_API_PREFIX}/v1`;
export const OPENAPI_PATH = `${ADMIN_API}/openapi.json`;

/** What an endpoint acted on, for the audit event (state key `admin_target`). */
export type AdminTarget = { action: string; user_id?: string | null; client_id?: string | null; details?: JsonObject };

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
        actor = await admin_actor(this.idp, context.headers.get("authorization"));
        context.state.admin_actor = actor;
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
    context.app.log({
      level: "error",
      msg: "unhandled error",
      request_id: context.state.request_id,
      method: context.request.method,
      path: context.request.path,
      error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
    });
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
