/**
 * Version 21: each link to an upstream account (`federated_identities`) records where its
 * subject came from: `issuer`, the upstream's issuer (OpenID Connect: the `iss` its ID Tokens are
 * verified against) or, for a plain OAuth 2.0 upstream, the user endpoint the subject is read
 * from; and `subject_claim`, the claim read as the subject (the upstream's
 * `claim_mapping.subject`). A subject is only unique at its issuer (OIDC Core §2: "locally unique
 * … within the Issuer"): after an upstream's issuer, kind or subject claim changes, the same
 * string may name someone else, so a sign-in matches a link only when both are the upstream's
 * current ones (oidc/federation/identity_source.ts).
 *
 * Existing links get their upstream's current issuer and subject claim, as the rules compute
 * them (identity_source.ts); a link whose upstream is gone keeps '' and matches nothing.
 */
import type { Migration } from "./migration.ts";

/** `subject_of_mapping`: the mapped subject claim as SQL of `u.claim_mapping` (JSON differs by database). */
function sql(subject_of_mapping: string): string {
  return `
ALTER TABLE federated_identities ADD COLUMN issuer TEXT NOT NULL DEFAULT '';
ALTER TABLE federated_identities ADD COLUMN subject_claim TEXT NOT NULL DEFAULT '';
UPDATE federated_identities SET
  issuer = COALESCE((SELECT CASE u.kind WHEN 'oidc' THEN u.issuer ELSE u.userinfo_endpoint END FROM upstreams u WHERE u.name = federated_identities.upstream), ''),
  subject_claim = COALESCE((SELECT COALESCE(${subject_of_mapping}, CASE u.kind WHEN 'oauth2' THEN 'id' ELSE 'sub' END) FROM upstreams u WHERE u.name = federated_identities.upstream), '');
`;
}

export const link_issuer: Migration = {
  version: 21,
  name: "link issuer",
  sqlite: sql("json_extract(u.claim_mapping, '$.subject')"),
  postgres: sql("u.claim_mapping ->> 'subject'"),
};
