/**
 * The attribute types our entries hold, each with its names (RFC 4512 §2.5: a short name, an
 * OID and long names, compared without case), how its values compare (the equality, ordering
 * and substrings rules of RFC 4517 §4.2 its syntax has), and whether it is operational (RFC 4512
 * §3.4: returned only when asked for by name or with `+`, RFC 3673). An attribute that is not
 * here is not in any entry, whatever a filter or an attribute list names (userPassword included).
 */
import { dn_text_key, value_key } from "./dn.ts";

/**
 * How values compare: `text` caseIgnoreMatch/caseIgnoreOrderingMatch/caseIgnoreSubstringsMatch;
 * `exact` the caseExact rules (IA5 paths); `dn` distinguishedNameMatch (no ordering, no
 * substrings); `integer` integerMatch and integerOrderingMatch; `phone` telephoneNumberMatch
 * (spaces and hyphens ignored, §4.2.29); `time` generalizedTimeMatch and its ordering; `uuid`
 * UUIDMatch and UUIDOrderingMatch (RFC 4530 §3).
 */
export type Syntax = "text" | "exact" | "dn" | "integer" | "phone" | "time" | "uuid";

export type AttributeType = { name: string; oid: string; aliases: readonly string[]; syntax: Syntax; operational: boolean };

const user = (name: string, oid: string, syntax: Syntax, aliases: readonly string[] = []): AttributeType => ({ name, oid, aliases, syntax, operational: false });
const operational = (name: string, oid: string, syntax: Syntax): AttributeType => ({ name, oid, aliases: [], syntax, operational: true });

/** Every attribute type of the directory (RFC 4519, RFC 4524, RFC 2798, RFC 2307, RFC 4512 §5.1, RFC 4530, RFC 5020). */
export const ATTRIBUTE_TYPES: readonly AttributeType[] = [
  user("objectClass", "2.5.4.0", "text"),
  user("uid", "0.9.2342.19200300.100.1.1", "text", ["userid"]),
  user("cn", "2.5.4.3", "text", ["commonName"]),
  user("sn", "2.5.4.4", "text", ["surname"]),
  user("givenName", "2.5.4.42", "text", ["gn"]),
  user("displayName", "2.16.840.1.113730.3.1.241", "text"),
  user("mail", "0.9.2342.19200300.100.1.3", "text", ["rfc822Mailbox"]),
  user("telephoneNumber", "2.5.4.20", "phone"),
  user("description", "2.5.4.13", "text"),
  user("member", "2.5.4.31", "dn"),
  user("memberOf", "1.2.840.113556.1.2.102", "dn"),
  user("uidNumber", "1.3.6.1.1.1.1.0", "integer"),
  user("gidNumber", "1.3.6.1.1.1.1.1", "integer"),
  user("gecos", "1.3.6.1.1.1.1.2", "text"),
  user("homeDirectory", "1.3.6.1.1.1.1.3", "exact"),
  user("loginShell", "1.3.6.1.1.1.1.4", "exact"),
  // RFC 2307 compares memberUid exactly; usernames compare without case everywhere here.
  user("memberUid", "1.3.6.1.1.1.1.12", "text"),
  user("dc", "0.9.2342.19200300.100.1.25", "text", ["domainComponent"]),
  user("ou", "2.5.4.11", "text", ["organizationalUnitName"]),
  user("o", "2.5.4.10", "text", ["organizationName"]),
  operational("entryUUID", "1.3.6.1.1.16.4", "uuid"),
  operational("entryDN", "1.3.6.1.1.20", "dn"),
  operational("createTimestamp", "2.5.18.1", "time"),
  operational("modifyTimestamp", "2.5.18.2", "time"),
  operational("hasSubordinates", "2.5.18.9", "text"),
  operational("namingContexts", "1.3.6.1.4.1.1466.101.120.5", "dn"),
  operational("supportedLDAPVersion", "1.3.6.1.4.1.1466.101.120.15", "integer"),
  operational("supportedExtension", "1.3.6.1.4.1.1466.101.120.7", "text"),
  operational("supportedControl", "1.3.6.1.4.1.1466.101.120.13", "text"),
  operational("supportedFeatures", "1.3.6.1.4.1.4203.1.3.5", "text"),
  operational("vendorName", "1.3.6.1.1.4", "text"),
];

const BY_NAME = new Map<string, AttributeType>();
for (const type of ATTRIBUTE_TYPES) {
  for (const name of [type.name, type.oid, ...type.aliases]) BY_NAME.set(name.toLowerCase(), type);
}

/**
 * The attribute type an attribute description names; null for one we do not hold, or one with
 * options (`cn;lang-en`, RFC 4512 §2.5: no value of ours has options, so none would match).
 */
export function attribute_type(description: string): AttributeType | null {
  return BY_NAME.get(description.toLowerCase()) ?? null;
}

/** A value in the form its equality rule compares; null when it is not a value of the syntax (the assertion is then Undefined). */
export function normalized(syntax: Syntax, value: string): string | number | null {
  switch (syntax) {
    case "text":
      return value_key(value);
    case "exact":
      return value.replace(/\s+/g, " ").trim();
    case "dn":
      return dn_text_key(value);
    case "integer":
      return /^\s*-?\d{1,15}\s*$/.test(value) ? Number(value.trim()) : null;
    case "phone":
      return value.replace(/[\s-]/g, "").toLowerCase();
    case "time":
      return generalized_time(value);
    case "uuid":
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value.toLowerCase() : null;
  }
}

/** Which syntaxes have an ordering rule and a substrings rule (RFC 4517 §4.2). */
export const ORDERED: ReadonlySet<Syntax> = new Set(["text", "exact", "integer", "time", "uuid"]);
export const SUBSTRINGS: ReadonlySet<Syntax> = new Set(["text", "exact", "phone"]);

/** GeneralizedTime (RFC 4517 §3.3.13) to unix milliseconds; null when it is not one. */
function generalized_time(value: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{2}(?:\d{2})?)$/.exec(value.trim());
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, , zone] = m;
  let at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi ?? 0), Number(s ?? 0));
  if (zone !== "Z") {
    const sign = zone!.startsWith("-") ? -1 : 1;
    at -= sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(3, 5) || 0)) * 60_000;
  }
  return Number.isNaN(at) ? null : at;
}

/** A unix time as GeneralizedTime in UTC (`20250101120000Z`). */
export function generalized_time_of(unix_seconds: number): string {
  return `${new Date(unix_seconds * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
}
