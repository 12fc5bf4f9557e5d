/** GET /admin/api/v1/upstreams/:name: the upstream (never its secret) with its redirect URI and an ETag. */
import { Fw } from "../../../../fw/index.ts";
import { upstream_admin_view, upstream_of } from "../../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { UpstreamSchema } from "./schemas.ts";

export const AdminUpstreamRead = (idp: Provider) =>
  class AdminUpstreamRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/upstreams/:name`;
    static openapi: OpenApiOperation = { summary: "Read an upstream identity provider", tag: "upstreams", response: UpstreamSchema, etag: true };

    async call() {
      const row = await upstream_of(idp.store, this.route_params.name ?? "");
      audit_target(this, { action: "upstream_read", details: { upstream: row.name } });
      return this.json(with_etag(this, upstream_admin_view(idp.config, row)));
    }
  };
