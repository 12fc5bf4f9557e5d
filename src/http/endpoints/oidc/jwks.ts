/** GET /.well-known/jwks.json: the public signing keys (RFC 7517 §5), public members only. */
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { NotModified, cached_bytes } from "../../precomputed.ts";

export const Jwks = (idp: Provider) =>
  class Jwks extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Bytes, NotModified]) {
    static route = `GET ${PATHS.jwks}`;
    // The same bytes for every GET until the keys change: Bun answers it natively (Fw `precomputed`).
    static precomputed = true;
    call() {
      const { body, etag } = idp.keys.jwks();
      // Short: keys rotate, and a client must see the next key before it signs.
      return cached_bytes(this.context, body, "application/jwk-set+json; charset=utf-8", etag, 300);
    }
  };
