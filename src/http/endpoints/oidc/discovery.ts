/** GET /.well-known/openid-configuration: the provider metadata (OIDC Discovery 1.0 §4). */
import { Fw } from "../../../fw/index.ts";
import { load_attribute_catalog } from "../../../oidc/attributes/claims.ts";
import { with_attributes } from "../../../oidc/discovery/metadata.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { NotModified, cached_bytes } from "../../precomputed.ts";

export const Discovery = (idp: Provider) => {
  const { body, etag } = idp.discovery;
  const bytes = new TextEncoder().encode(body);
  return class Discovery extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Bytes, NotModified]) {
    static route = `GET ${PATHS.discovery}`;
    // The same bytes for every GET until the attribute definitions change (app/attribute_watch.ts
    // has the copy recomputed) or a restart: Bun answers it natively (Fw `precomputed`).
    static precomputed = true;
    async call() {
      const catalog = await load_attribute_catalog(idp.store);
      // Changes with the configuration (a restart) or the attributes: cache for an hour without
      // attributes, five minutes with them (a new attribute's scope shows up soon).
      if (catalog.definitions.length === 0) return cached_bytes(this.context, bytes, "application/json; charset=utf-8", etag, 3600);
      const document = with_attributes(idp.discovery, catalog.definitions);
      return cached_bytes(this.context, document.body, "application/json; charset=utf-8", document.etag, 300);
    }
  };
};
