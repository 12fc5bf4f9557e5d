/**
 * The attributes an Assertion carries (SAML Core §2.7.3 AttributeStatement): the usual names of
 * the directory world, each twice — under its plain name (the basic name format, SAML Core
 * §8.2.2), which most service providers read, and under its OID (the URI name format, §8.2.3, as
 * the SAML V2.0 X.500/LDAP Attribute Profile names it) with the plain name as FriendlyName — so
 * a service provider finds them under whichever name it was configured with.
 *
 * | basic name    | URI name                              | from the user       |
 * | ------------- | ------------------------------------- | ------------------- |
 * | `uid`         | urn:oid:0.9.2342.19200300.100.1.1     | username            |
 * | `mail`        | urn:oid:0.9.2342.19200300.100.1.3     | e-mail address      |
 * | `displayName` | urn:oid:2.16.840.1.113730.3.1.241     | name                |
 * | `givenName`   | urn:oid:2.5.4.42                      | given name          |
 * | `sn`          | urn:oid:2.5.4.4                       | family name         |
 * | `memberOf`    | urn:oid:1.2.840.113556.1.2.102        | groups (one value each) |
 *
 * The operator adds others per service provider (`idp saml add --attribute NAME=CLAIM`): NAME
 * carries the user claim CLAIM (basic name format, or URI when NAME is a URI); one with a
 * standard name replaces it. The operator's custom attributes (`idp attributes`, attributes/)
 * follow under their claim names (basic name format), every value of a list as one
 * AttributeValue; a standard or extra attribute of the same name wins. An attribute the user has
 * no value for is left out.
 */
import { claims_for, RELEASABLE_CLAIMS } from "../claims/user_claims.ts";
import type { JsonValue, UserRow } from "../../store/types.ts";
import { ATTRNAME_FORMAT } from "./names.ts";

export const STANDARD_ATTRIBUTES = [
  { name: "uid", oid: "urn:oid:0.9.2342.19200300.100.1.1", claim: "preferred_username" },
  { name: "mail", oid: "urn:oid:0.9.2342.19200300.100.1.3", claim: "email" },
  { name: "displayName", oid: "urn:oid:2.16.840.1.113730.3.1.241", claim: "name" },
  { name: "givenName", oid: "urn:oid:2.5.4.42", claim: "given_name" },
  { name: "sn", oid: "urn:oid:2.5.4.4", claim: "family_name" },
  { name: "memberOf", oid: "urn:oid:1.2.840.113556.1.2.102", claim: "groups" },
] as const;

/** The claims an extra attribute may carry: the user's releasable claims (not `address`, an object), the user id and the groups. */
export const ATTRIBUTE_CLAIMS: readonly string[] = [...new Set(["sub", "groups", ...[...RELEASABLE_CLAIMS].filter((claim) => claim !== "address" && claim !== "roles")])].sort();

/** An attribute name: a plain name or a URI (SAML Core §2.7.3.1: a string), printable ASCII without spaces. */
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.:/#@+-]{1,256}$/;

/** Why `name=claim` cannot be an extra attribute; null when it can. */
export function extra_attribute_problem(name: string, claim: string): string | null {
  if (!ATTRIBUTE_NAME.test(name)) return `attribute name "${name.slice(0, 60)}" must be 1 to 256 ASCII letters, digits or _ . : / # @ + -`;
  if (!ATTRIBUTE_CLAIMS.includes(claim)) return `claim "${claim.slice(0, 60)}" is not one of ${ATTRIBUTE_CLAIMS.join(", ")}`;
  return null;
}

/** One attribute of the statement. */
export type Attribute = { name: string; name_format: string; friendly_name: string | null; values: string[] };

function as_values(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v !== "");
  if (typeof value === "string") return value === "" ? [] : [value];
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  return [];
}

function claim_values(user: UserRow, groups: readonly string[], claim: string): string[] {
  if (claim === "groups") return [...groups];
  if (claim === "sub") return [user.id];
  return as_values(claims_for(user, [], [claim])[claim]);
}

/**
 * The attributes of `user` for a service provider with these extra attributes; `custom`: the
 * user's custom attribute claims (attributes/claims.ts `map_attribute_claims`).
 */
export function user_attributes(user: UserRow, groups: readonly string[], extra: Readonly<Record<string, string>>, custom: Readonly<Record<string, JsonValue>> = {}): Attribute[] {
  const out: Attribute[] = [];
  const overridden = new Set(Object.keys(extra));
  for (const { name, oid, claim } of STANDARD_ATTRIBUTES) {
    if (overridden.has(name) || overridden.has(oid)) continue;
    const values = claim_values(user, groups, claim);
    if (values.length === 0) continue;
    out.push({ name, name_format: ATTRNAME_FORMAT.basic, friendly_name: null, values });
    out.push({ name: oid, name_format: ATTRNAME_FORMAT.uri, friendly_name: name, values });
  }
  for (const [name, claim] of Object.entries(extra)) {
    const values = claim_values(user, groups, claim);
    if (values.length === 0) continue;
    const is_uri = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(name);
    out.push({ name, name_format: is_uri ? ATTRNAME_FORMAT.uri : ATTRNAME_FORMAT.basic, friendly_name: null, values });
  }
  const taken = new Set(out.map((attribute) => attribute.name.toLowerCase()));
  for (const [name, value] of Object.entries(custom)) {
    const values = as_values(value);
    if (values.length === 0 || taken.has(name.toLowerCase())) continue;
    out.push({ name, name_format: ATTRNAME_FORMAT.basic, friendly_name: null, values });
  }
  return out;
}
