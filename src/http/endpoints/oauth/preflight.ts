/**
 * OPTIONS /token, /userinfo, /revoke, /par and /device_authorization: CORS preflight for browser-based clients (the Authorization
 * header of a userinfo call, for one, is not a "simple" header). The answer's CORS and cache
 * headers come from ProtocolHandler.
 */
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";

function preflight(path: string, methods: string) {
  return class Preflight extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `OPTIONS ${path}`;
    call() {
      const headers = this.response.headers;
      headers.set("access-control-allow-methods", methods);
      // DPoP: the proof header of RFC 9449 §4.1.
      headers.set("access-control-allow-headers", "Authorization, Content-Type, DPoP");
      headers.set("access-control-max-age", "600");
      return new Fw.Response.Empty();
    }
  };
}

export const TokenPreflight = (_idp: Provider) => preflight(PATHS.token, "POST");
export const UserinfoPreflight = (_idp: Provider) => preflight(PATHS.userinfo, "GET, POST");
/** RFC 7009 from a browser app: a public client revokes its tokens at sign-out. */
export const RevokePreflight = (_idp: Provider) => preflight(PATHS.revoke, "POST");
/** RFC 9126 from a browser app (a public client pushes its request). */
export const ParPreflight = (_idp: Provider) => preflight(PATHS.par, "POST");
/** RFC 8628 from a browser-based device app (a public client starts the flow). */
export const DeviceAuthorizationPreflight = (_idp: Provider) => preflight(PATHS.device_authorization, "POST");
