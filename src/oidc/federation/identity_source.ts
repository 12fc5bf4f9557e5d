/**
 * Where an upstream's subjects come from, and so which links to local accounts still name the
 * right people. OIDC Core §2: `sub` is "locally unique and never reassigned within the Issuer";
 * nothing makes it unique across issuers. A link (store: federated_identities, migration 021)
 * records the source it was made under; a sign-in uses a link only when the upstream's source is
 * still that one (local_account.ts), and a change of the source while links exist is refused
 * unless the operator drops them (admin/upstreams.ts `change_upstream`, configured.ts).
 */
import type { IdentitySource, UpstreamRow } from "../../store/types.ts";

type SourceFields = Pick<UpstreamRow, "kind" | "issuer" | "userinfo_endpoint" | "claim_mapping">;

/**
 * An OpenID Connect upstream's subject is the `sub` of an ID Token whose `iss` is verified to be
 * its issuer; a plain OAuth 2.0 upstream's is a member of what its user endpoint answers (no
 * issuer is verified there). The claim is the upstream's mapping of `subject` (new_upstream
 * always stores one; sub, or id for OAuth 2.0, when absent).
 */
export function identity_source(upstream: SourceFields): IdentitySource {
  const mapped = upstream.claim_mapping.subject;
  return {
    issuer: (upstream.kind === "oidc" ? upstream.issuer : upstream.userinfo_endpoint) ?? "",
    subject_claim: typeof mapped === "string" ? mapped : upstream.kind === "oauth2" ? "id" : "sub",
  };
}

/** Whether a link was made under this source: only then does its subject name the same person. */
export function same_source(link: IdentitySource, current: IdentitySource): boolean {
  return link.issuer === current.issuer && link.subject_claim === current.subject_claim;
}

/**
 * The fields of a change that move the source of an upstream's subjects (empty: none): its
 * kind, its issuer (or, for OAuth 2.0, its user endpoint), its subject claim.
 */
export function source_changes(before: SourceFields, after: SourceFields): string[] {
  const [from, to] = [identity_source(before), identity_source(after)];
  const changed: string[] = [];
  if (before.kind !== after.kind) changed.push("kind");
  if (from.issuer !== to.issuer) changed.push(after.kind === "oidc" ? "issuer" : "userinfo_endpoint");
  if (from.subject_claim !== to.subject_claim) changed.push("claim_mapping.subject");
  return changed;
}
