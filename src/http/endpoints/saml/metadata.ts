/**
 * GET /saml/metadata: our SAML 2.0 metadata (SAML Metadata §2.4.3), whose URL is our entityID
 * (oidc/saml/metadata.ts). Public: service providers load it, by URL or as a file.
 */
import { createHash } from "node:crypto";
import { Fw } from "../../../fw/index.ts";
import { SAML_PATHS, idp_metadata } from "../../../oidc/saml/metadata.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { NotModified, cached_bytes } from "../../precomputed.ts";

/** SAML Metadata §4.1.1 (the media type registered for metadata). */
const MEDIA_TYPE = "application/samlmetadata+xml; charset=utf-8";

export const SamlMetadata = (idp: Provider) =>
  class SamlMetadata extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Bytes, NotModified]) {
    static route = `GET ${SAML_PATHS.metadata}`;

    call() {
      const xml = idp_metadata(idp);
      const etag = `"${createHash("sha256").update(xml, "utf8").digest("base64url")}"`;
      // Short, as the JWKS: a rotation announces the next key here, and a service provider must see it.
      return cached_bytes(this.context, xml, MEDIA_TYPE, etag, 300);
    }
  };
