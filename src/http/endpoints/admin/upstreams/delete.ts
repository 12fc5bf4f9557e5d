/**
 * DELETE /admin/api/v1/upstreams/:name, with If-Match: the upstream and, as `idp upstreams
 * remove` does, the identities linked through it (the store removes them with it). The local
 * accounts stay, with their passwords and passkeys; sign-ins through the upstream end here.
 */
import { Fw } from "../../../../fw/index.ts";
import { upstream_admin_view, upstream_of } from "../../../../oidc/admin/upstreams.ts";
import { lost_write } from "../../../../oidc/admin/etag.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, type OpenApiOperation } from "../common.ts";

export const AdminUpstreamDelete = (idp: Provider) =>
  class AdminUpstreamDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/upstreams/:name`;
    static openapi: OpenApiOperation = { summary: "Remove an upstream identity provider and the identities linked through it", tag: "upstreams", status: 204, if_match: true };

    async call() {
      const row = await upstream_of(idp.store, this.route_params.name ?? "");
      require_match(this, upstream_admin_view(idp.config, row));
      // Only the version whose ETag was checked (store/types/common.ts IfVersion).
      if (!(await idp.store.delete_upstream(row.name, { if_version: row.version }))) throw await lost_write(idp.store.get_upstream(row.name), "upstream", row.name);
      audit_target(this, { action: "upstream_deleted", details: { upstream: row.name } });
      return new Fw.Response.Empty();
    }
  };
