/**
 * The entries of the directory, made from the store's rows at each request: the root DSE
 * (RFC 4512 §5.1), the suffix and its containers, users (inetOrgPerson, RFC 2798; posixAccount,
 * RFC 2307) and groups (groupOfNames, RFC 4519 §3.5; posixGroup). Only the attributes listed
 * here exist: never a password hash, TOTP secret or recovery code. The e-mail address is
 * released only once verified (applications match accounts by it). Then the attribute selection
 * of a search (RFC 4511 §4.5.1.8, with `+` of RFC 3673).
 */
import { createHash } from "node:crypto";
import type { GroupRow, JsonValue, UserRow } from "../../store/types.ts";
import { format_dn, type Dn } from "./dn.ts";
import { ldap_values, types_by_name, type CustomType } from "./custom_attributes.ts";
import { type_in, type Entry } from "./filter_match.ts";
import { OID, type Attribute } from "./protocol.ts";
import { attribute_type, generalized_time_of } from "./schema.ts";
import { group_dn, user_dn, type Tree } from "./tree.ts";

/** RFC 4512 §5.1 plus the features we have: all operational attributes by `+` (RFC 3673) and absolute true/false filters (RFC 4526). */
export const SUPPORTED_FEATURES = ["1.3.6.1.4.1.4203.1.5.1", "1.3.6.1.4.1.4203.1.5.3"];
export const SUPPORTED_CONTROLS = [OID.paged_results, OID.manage_dsa_it];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An entry's UUID (RFC 4530): its row's id when that is one, else a stable one made from `name` (RFC 9562 §5.8, version 8). */
export function uuid_of(id: string, name: string): string {
  if (UUID.test(id)) return id.toLowerCase();
  const hex = createHash("sha256").update(name).digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The root DSE: what the server is and offers, readable before any bind. */
export function root_dse(tree: Tree, start_tls: boolean): Entry {
  return {
    dn: "",
    attributes: {
      objectClass: ["top"],
      namingContexts: [tree.base_text],
      supportedLDAPVersion: ["3"],
      supportedExtension: [...(start_tls ? [OID.start_tls] : []), OID.who_am_i],
      supportedControl: SUPPORTED_CONTROLS,
      supportedFeatures: SUPPORTED_FEATURES,
      vendorName: ["idp"],
    },
  };
}

/** Classes of the suffix by the type of its first RDN (RFC 4519 §3.4, §3.11; RFC 4524 §3.4). */
const SUFFIX_CLASSES: Record<string, string> = { dc: "domain", o: "organization", ou: "organizationalUnit" };

/** The suffix and the two containers below it. */
export function container(tree: Tree, which: "base" | "people" | "groups"): Entry {
  const dn: Dn = which === "base" ? tree.base : tree[which];
  const text = format_dn(dn);
  const rdn = dn[0]!;
  const cls = SUFFIX_CLASSES[rdn[0]!.type] ?? "extensibleObject";
  const naming: Record<string, string[]> = {};
  for (const ava of rdn) {
    const type = attribute_type(ava.type);
    if (type !== null) naming[type.name] = [...(naming[type.name] ?? []), ava.value];
  }
  return {
    dn: text,
    attributes: { objectClass: ["top", cls], ...naming, entryUUID: [uuid_of("", text.toLowerCase())], entryDN: [text], hasSubordinates: ["TRUE"] },
  };
}

const present = (value: string | null | undefined): string[] => (value === null || value === undefined || value.trim() === "" ? [] : [value]);

/**
 * A user's entry; `groups` are the names of their groups, `posix` their number when POSIX
 * attributes are on; `custom` the released custom attributes and `values` the user's values of
 * them by declared name (custom_attributes.ts).
 */
export function user_entry(
  tree: Tree,
  user: UserRow,
  groups: readonly string[],
  posix: number | null,
  custom: readonly CustomType[] = [],
  values: Readonly<Record<string, JsonValue>> = {},
): Entry {
  const dn = user_dn(tree, user.username);
  const name = user.name?.trim() || user.username;
  const attributes: Record<string, string[]> = {
    objectClass: ["top", "person", "organizationalPerson", "inetOrgPerson", ...(posix === null ? [] : ["posixAccount"])],
    uid: [user.username],
    // person (RFC 4519 §3.12) must have cn and sn.
    cn: [name],
    sn: [user.family_name?.trim() || name],
    givenName: present(user.given_name),
    displayName: present(user.name),
    mail: user.email_verified ? present(user.email) : [],
    telephoneNumber: present(user.phone_number),
    memberOf: groups.map((group) => group_dn(tree, group)),
    ...(posix === null
      ? {}
      : {
          uidNumber: [String(posix)],
          // Its own group (the user private group scheme): the same number, never another's.
          gidNumber: [String(posix)],
          homeDirectory: [`/home/${user.username}`],
          loginShell: ["/bin/bash"],
          gecos: [name],
        }),
    entryUUID: [uuid_of(user.id, `user:${user.id}`)],
    entryDN: [dn],
    createTimestamp: [generalized_time_of(user.created_at)],
    modifyTimestamp: [generalized_time_of(user.updated_at)],
    hasSubordinates: ["FALSE"],
  };
  for (const { definition, type } of custom) attributes[type.name] = ldap_values(values[definition.name]);
  return { dn, attributes: without_empty(attributes), ...(custom.length > 0 && { types: types_by_name(custom) }) };
}

/** A group's entry; `members` are the usernames of its members shown to this viewer. */
export function group_entry(tree: Tree, group: GroupRow, members: readonly string[], posix: number | null): Entry {
  const dn = group_dn(tree, group.name);
  const attributes: Record<string, string[]> = {
    objectClass: ["top", "groupOfNames", ...(posix === null ? [] : ["posixGroup"])],
    cn: [group.name],
    description: present(group.description),
    member: members.map((username) => user_dn(tree, username)),
    ...(posix === null ? {} : { gidNumber: [String(posix)], memberUid: [...members] }),
    entryUUID: [uuid_of(group.id, `group:${group.id}`)],
    entryDN: [dn],
    createTimestamp: [generalized_time_of(group.created_at)],
    modifyTimestamp: [generalized_time_of(group.created_at)],
    hasSubordinates: ["FALSE"],
  };
  return { dn, attributes: without_empty(attributes) };
}

function without_empty(attributes: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(attributes).filter(([, values]) => values.length > 0));
}

/**
 * The attributes a search returns (RFC 4511 §4.5.1.8): none asked or `*`, every user
 * attribute; `+`, every operational one (RFC 3673); others by name (unknown names are
 * ignored); `1.1` alone, none. `types_only`: the types without their values.
 */
export function selected(entry: Entry, asked: readonly string[], types_only: boolean): Attribute[] {
  const all_user = asked.length === 0 || asked.includes("*");
  const all_operational = asked.includes("+");
  const named = new Set<string>();
  for (const name of asked) {
    const type = type_in(entry, name);
    if (type !== null) named.add(type.name);
  }
  const out: Attribute[] = [];
  for (const [name, values] of Object.entries(entry.attributes)) {
    const type = type_in(entry, name);
    if (type === null || values.length === 0) continue;
    if (named.has(type.name) || (type.operational ? all_operational : all_user)) out.push({ type: type.name, values: types_only ? [] : [...values] });
  }
  return out;
}
