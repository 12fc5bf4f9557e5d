/**
 * POST /scim/v2/Bulk (RFC 7644 §3.7): at most maxOperations operations (oidc/scim/bulk.ts), the
 * body at most maxPayloadSize bytes (the smaller of 1 MiB and IDP_BODY_LIMIT: 413 above). Each
 * operation is audited on its own (`scim`, action and status), besides the call itself.
 */
import { Fw } from "../../../fw/index.ts";
import { record_event } from "../../../oidc/audit.ts";
import type { AdminActor } from "../../../oidc/admin/auth.ts";
import { run_bulk } from "../../../oidc/scim/bulk.ts";
import { scim_of } from "../../../oidc/scim/operations.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { SCIM, ScimBody, scim_json, scim_target } from "./common.ts";

export const ScimBulk = (idp: Provider) =>
  class ScimBulk extends Fw.Endpoint(ScimBody, Fw.Response.Json) {
    static route = `POST ${SCIM}/Bulk`;

    async call() {
      const actor = this.context.state.admin_actor as AdminActor & { scim_token?: string };
      let operations = 0;
      const body = await run_bulk(scim_of(idp), this.scim_body, async (done) => {
        operations++;
        await record_event(idp, {
          type: "scim",
          outcome: done.status < 400 ? "success" : "failure",
          client_id: actor.scim_token === undefined ? actor.client_id : null,
          user_id: done.outcome?.user_id ?? null,
          ip: client_ip(this.context, idp.config),
          details: {
            method: done.method,
            path: `${SCIM}${done.path}`,
            status: done.status,
            bulk: true,
            ...(actor.scim_token !== undefined && { scim_token: actor.scim_token }),
            ...(done.outcome !== null && { action: done.outcome.action, ...done.outcome.details }),
          },
        });
      });
      scim_target(this, { action: "bulk", details: { operations } });
      return scim_json(this, body);
    }
  };
