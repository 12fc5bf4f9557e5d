/**
 * The NameID a service provider gets for a user (SAML Core §2.2.3, §8.3), in the format its
 * operator chose (`idp saml add --nameid-format`):
 *
 * - persistent (SAML Core §8.3.7): opaque and stable for this service provider, and different
 *   for every other one (they cannot correlate users), like pairwise subjects (claims/pairwise.ts):
 *   base64url(SHA-256) of the service provider's own random salt and the user id, 43 characters
 *   (the format allows 256). It never changes with the username, the e-mail address or the keys;
 * - email (§8.3.2): the user's e-mail address (a user without one cannot sign in to it);
 * - transient (§8.3.8): a new random value at each sign-in;
 * - unspecified (§8.3.1): the username.
 */
import { createHash } from "node:crypto";
import { random_token } from "../crypto/secrets.ts";
import type { SamlServiceProviderRow, UserRow } from "../../store/types.ts";
import { NAMEID_FORMATS } from "./names.ts";

export type NameId = {
  format: string;
  value: string;
  /** SAML Core §8.3.7: who issued the identifier (us) and for whom (the service provider); persistent and transient only. */
  name_qualifier: string | null;
  sp_name_qualifier: string | null;
};

/** The persistent NameID of `user_id` at the service provider whose salt is `salt`. */
export function persistent_id(salt: string, user_id: string): string {
  // Lengths first: "a" ‖ "bc" and "ab" ‖ "c" must not hash alike.
  return createHash("sha256").update(`saml-persistent|${salt.length}:${salt}|${user_id.length}:${user_id}`, "utf8").digest("base64url");
}

/** The NameID of `user` for `sp`; null when the user has no value in its format (an e-mail address). */
export function name_id(sp: SamlServiceProviderRow, user: UserRow, idp_entity_id: string): NameId | null {
  switch (sp.nameid_format) {
    case "persistent":
      return { format: NAMEID_FORMATS.persistent, value: persistent_id(sp.nameid_salt, user.id), name_qualifier: idp_entity_id, sp_name_qualifier: sp.entity_id };
    case "transient":
      return { format: NAMEID_FORMATS.transient, value: `_${random_token(20)}`, name_qualifier: idp_entity_id, sp_name_qualifier: sp.entity_id };
    case "email":
      return user.email ? { format: NAMEID_FORMATS.email, value: user.email, name_qualifier: null, sp_name_qualifier: null } : null;
    case "unspecified":
      return { format: NAMEID_FORMATS.unspecified, value: user.username, name_qualifier: null, sp_name_qualifier: null };
  }
}
