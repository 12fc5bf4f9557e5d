/**
 * What users and groups share as SCIM resources: the context (the provider, the enterprise
 * values' home, the base URL), `meta` with its version (RFC 7643 §3.1, RFC 7644 §3.14: a weak
 * ETag of the representation), and If-Match.
 */
import { sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UnixSeconds } from "../../store/types.ts";
import type { EnterpriseAttributes } from "./enterprise.ts";
import { ScimError } from "./errors.ts";
import { SCIM_PATH, type ResourceKind } from "./schema.ts";

export type Scim = { idp: Provider; enterprise: EnterpriseAttributes };

export function base_url(scim: Scim): string {
  return `${scim.idp.config.issuer}${SCIM_PATH}`;
}

const iso = (at: UnixSeconds) => new Date(at * 1000).toISOString();

/** Adds `meta` to a representation; `version` is a weak ETag of everything else in it. */
export function with_meta(scim: Scim, kind: ResourceKind, resource: JsonObject, created: UnixSeconds, modified: UnixSeconds): JsonObject {
  const meta: JsonObject = { resourceType: kind, created: iso(created), lastModified: iso(modified), location: `${base_url(scim)}/${kind}s/${String(resource.id)}` };
  const version = `W/"${sha256(JSON.stringify({ ...resource, meta })).slice(0, 27)}"`;
  return { ...resource, meta: { ...meta, version } };
}

export function version_of(resource: JsonObject): string {
  return String((resource.meta as JsonObject).version);
}

/**
 * RFC 7644 §3.14: a change sent with If-Match applies only to the version named (a weak tag is
 * compared by its opaque part, as the RFC's own examples send W/ tags); without one it applies.
 */
export function check_if_match(if_match: string | null, resource: JsonObject): void {
  if (if_match === null || if_match.trim() === "" || if_match.trim() === "*") return;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const current = opaque(version_of(resource));
  if (!if_match.split(",").some((tag) => opaque(tag) === current)) {
    throw new ScimError(412, null, "the resource changed since this version was read: GET it again and retry with its meta.version");
  }
}
