/**
 * POST /admin/api/v1/upstreams: a new upstream identity provider, from a preset or explicit
 * fields, checked as `idp upstreams add` checks one; the answer holds the redirect URI to
 * register at the upstream. The client secret is stored encrypted and never answered.
 */
import { Fw } from "../../../../fw/index.ts";
import { create_upstream, upstream_admin_view } from "../../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outbound_warnings, upstream_called_urls } from "../../../../oidc/outbound/preflight.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { UpstreamCreateSchema, UpstreamSchema } from "./schemas.ts";

export const AdminUpstreamCreateRequest = Fw.Request("AdminUpstreamCreateRequest", UpstreamCreateSchema, { from: ["body"] });

export const AdminUpstreamCreate = (idp: Provider) =>
  class AdminUpstreamCreate extends Fw.Endpoint(AdminUpstreamCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/upstreams`;
    static openapi: OpenApiOperation = {
      summary: "Add an upstream identity provider (from a preset or explicit fields)",
      tag: "upstreams",
      body: UpstreamCreateSchema,
      response: UpstreamSchema,
      status: 201,
      etag: true,
    };

    async call() {
      const row = await create_upstream(idp.store, idp.config, this.admin_upstream_create_request);
      audit_target(this, { action: "upstream_created", details: { upstream: row.name, kind: row.kind } });
      this.response.headers.set("location", `${ADMIN_API}/upstreams/${row.name}`);
      // Added all the same when the outbound fence would refuse its issuer or an endpoint; `warnings` says so.
      const warnings = await outbound_warnings(upstream_called_urls(row), idp.config.outbound);
      return this.json({ ...with_etag(this, upstream_admin_view(idp.config, row)), ...(warnings.length > 0 ? { warnings } : {}) }, 201);
    }
  };
