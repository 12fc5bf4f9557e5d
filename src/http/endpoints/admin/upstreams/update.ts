/**
 * PATCH /admin/api/v1/upstreams/:name, with If-Match: enable or disable, rename the button,
 * scopes, policy, auto-link, group mapping, the upstream's MFA trust and acr values, a new client
 * secret (write-only)… The members sent replace the stored ones and the result is checked whole.
 * A new issuer, kind or subject claim while accounts are linked: 409, unless `drop_links: true`
 * (the links go, their number is audited: oidc/admin/upstreams.ts change_upstream).
 */
import { Fw } from "../../../../fw/index.ts";
import { change_upstream, upstream_admin_view, upstream_of } from "../../../../oidc/admin/upstreams.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { outbound_warnings, upstream_called_urls } from "../../../../oidc/outbound/preflight.ts";
import { ADMIN_API, audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { UpstreamPatchSchema, UpstreamSchema } from "./schemas.ts";

export const AdminUpstreamUpdateRequest = Fw.Request("AdminUpstreamUpdateRequest", UpstreamPatchSchema, { from: ["body"] });

export const AdminUpstreamUpdate = (idp: Provider) =>
  class AdminUpstreamUpdate extends Fw.Endpoint(AdminUpstreamUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${ADMIN_API}/upstreams/:name`;
    static openapi: OpenApiOperation = {
      summary: "Change an upstream identity provider",
      tag: "upstreams",
      body: UpstreamPatchSchema,
      response: UpstreamSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const row = await upstream_of(idp.store, this.route_params.name ?? "");
      require_match(this, upstream_admin_view(idp.config, row));
      const { drop_links, ...input } = this.admin_upstream_update_request as Record<string, unknown>;
      const { upstream: updated, links_dropped } = await change_upstream(idp.store, idp.config, row, input, { drop_links: drop_links === true });
      const changed = Object.keys(input);
      // Enabling or disabling is named as `idp upstreams enable|disable` names it; never the secret, only that it changed.
      const action = changed.length === 1 && changed[0] === "enabled" ? (updated.enabled ? "upstream_enabled" : "upstream_disabled") : "upstream_updated";
      audit_target(this, { action, details: { upstream: row.name, changed, ...(drop_links === true ? { links_dropped } : {}) } });
      const warnings = await outbound_warnings(upstream_called_urls(updated), idp.config.outbound);
      return this.json({ ...with_etag(this, upstream_admin_view(idp.config, updated)), ...(warnings.length > 0 ? { warnings } : {}) });
    }
  };
