/**
 * Around everything under /scim/v2 (mounted when IDP_SCIM is on), whatever answers:
 * - the caller is the client of an access token with the `scim` scope (oidc/admin/auth.ts with
 *   SCIM_SCOPE: an admin-flagged client, client_credentials), Bearer or DPoP as for the admin API,
 *   or a long-lived SCIM token (`idp scim tokens`, oidc/scim/tokens.ts) as Bearer, audited with
 *   its name (client_id null, details.scim_token);
 * - `Cache-Control: no-store` (the answers hold personal data);
 * - every error as a SCIM error document (RFC 7644 §3.12: `schemas`, `status` as a string,
 *   `scimType`, `detail`), framework errors (a malformed JSON body, a 404 path) included;
 * - every authenticated call audited (`scim`: the client, method, path, status, the user it acted
 *   on and the action), reads included, like the admin API's; never a body or a query string.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { record_event } from "../../oidc/audit.ts";
import { AdminTokenRefused, admin_actor, type AdminActor } from "../../oidc/admin/auth.ts";
import { SCIM_SCOPE } from "../../oidc/admin/scope.ts";
import { scim_error_of } from "../../oidc/scim/errors.ts";
import { is_scim_token, scim_token_name } from "../../oidc/scim/tokens.ts";
import { ERROR_SCHEMA, SCIM_PATH } from "../../oidc/scim/schema.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { problem_of } from "../problems.ts";
import { admin_credentials } from "./admin_api.ts";
import { client_ip } from "./proxy.ts";

export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

/** What an endpoint acted on, for the audit event (state key `scim_target`). */
export type ScimTarget = { action: string; user_id?: string | null; details?: JsonObject };

/** RFC 7644 §3.12: the error document. */
export function scim_error_response(context: Context, status: number, scim_type: string | null, detail: string, headers: Record<string, string> = {}): Response {
  const out = new Headers(context.response.headers);
  out.delete("etag");
  for (const [name, value] of Object.entries(headers)) out.set(name, value);
  out.set("content-type", SCIM_CONTENT_TYPE);
  const body = { schemas: [ERROR_SCHEMA], status: String(status), ...(scim_type !== null && { scimType: scim_type }), detail };
  return new Response(JSON.stringify(body), { status, headers: out });
}

export class ScimHandler extends Fw.Handler {
  constructor(private readonly idp: Provider) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const path = context.request.path;
    if (path !== SCIM_PATH && !path.startsWith(`${SCIM_PATH}/`)) return next();
    context.response.headers.set("cache-control", "no-store");
    let actor: (AdminActor & { scim_token?: string }) | undefined;
    let response: Response;
    try {
      const credentials = await admin_credentials(this.idp, context);
      if (credentials !== null && credentials.proof === null && is_scim_token(credentials.token)) {
        const name = await scim_token_name(this.idp.store, credentials.token, this.idp.now(), this.idp.config.issuer);
        actor = { client_id: "", client_name: name, scim_token: name };
      } else actor = await admin_actor(this.idp, credentials, SCIM_SCOPE);
      context.state.admin_actor = actor;
      response = await next();
    } catch (thrown) {
      if (thrown instanceof AdminTokenRefused) actor = { client_id: thrown.client_id, client_name: null };
      response = this.error(thrown, context);
    }
    if (actor !== undefined) await this.audit(context, actor, response.status);
    return response;
  }

  private error(thrown: unknown, context: Context): Response {
    const scim = scim_error_of(thrown);
    if (scim !== null) return scim_error_response(context, scim.status, scim.scim_type, scim.message);
    const problem = problem_of(thrown);
    if (problem !== null) {
      // A body that is not JSON is invalidSyntax (RFC 7644 §3.12); other framework errors keep their status.
      const scim_type = problem.status === 400 ? "invalidSyntax" : null;
      return scim_error_response(context, problem.status, scim_type, problem.detail, problem.headers);
    }
    // A bug: its stack goes to the log with the request id, never to the client.
    Fw.log_unhandled(thrown, context);
    return scim_error_response(context, 500, null, "Internal server error");
  }

  private async audit(context: Context, actor: AdminActor & { scim_token?: string }, status: number): Promise<void> {
    const target = context.state.scim_target as ScimTarget | undefined;
    await record_event(this.idp, {
      type: "scim",
      outcome: status < 400 ? "success" : "failure",
      client_id: actor.scim_token === undefined ? actor.client_id : null,
      user_id: target?.user_id ?? null,
      ip: client_ip(context, this.idp.config),
      details: {
        method: context.request.method,
        path: context.request.path,
        status,
        ...(target !== undefined && { action: target.action }),
        ...(target?.details ?? {}),
        ...(actor.scim_token !== undefined && { scim_token: actor.scim_token }),
      },
    });
  }
}
