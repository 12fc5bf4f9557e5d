/** GET /.well-known/openid-configuration: the provider metadata (OIDC Discovery 1.0 §4). */
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { NotModified, cached_bytes } from "../../precomputed.ts";

export const Discovery = (idp: Provider) => {
  const { body, etag } = idp.discovery;
  const bytes = new TextEncoder().encode(body);
  return class Discovery extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Bytes, NotModified]) {
    static route = `GET ${PATHS.discovery}`;
    // The same bytes for every GET until a restart: Bun answers it natively (Fw `precomputed`).
    static precomputed = true;
    call() {
      // Changes only with the configuration (a restart): cache for an hour.
      return cached_bytes(this.context, bytes, "application/json; charset=utf-8", etag, 3600);
    }
  };
};
