/**
 * The shape of the directory: a suffix (IDP_LDAP_BASE_DN, or one made of the issuer's host),
 * two containers of entries below it, and the branch service accounts bind under:
 *
 *   <base>
 *   ├── ou=people   uid=<username>,ou=people,<base>   (inetOrgPerson; posixAccount)
 *   ├── ou=groups   cn=<group>,ou=groups,<base>       (groupOfNames; posixGroup)
 *   └── ou=services cn=<name>,ou=services,<base>      (bind DNs only: no entries are shown)
 *
 * `locate` says what a DN a client sent names, and for a DN that names nothing, the deepest
 * entry above it (the `matchedDN` of noSuchObject, RFC 4511 §4.1.9).
 */
import type { Config } from "../../config/schema.ts";
import { base_dn_of_host, child_dn, dn_key, format_dn, parse_dn, type Dn, type Rdn } from "./dn.ts";

export type Tree = {
  base: Dn;
  /** The suffix as written in entries and namingContexts. */
  base_text: string;
  people: Dn;
  groups: Dn;
  services: Dn;
};

export const CONTAINERS = { people: "people", groups: "groups", services: "services" } as const;

/** The tree of a configuration; throws (at start) when IDP_LDAP_BASE_DN is not a DN. */
export function tree_of(config: Config): Tree {
  const text = config.ldap.base_dn ?? base_dn_of_host(new URL(config.issuer).hostname);
  const base = parse_dn(text);
  if (base === null || base.length === 0) throw new Error(`IDP_LDAP_BASE_DN "${text}" is not a distinguished name (RFC 4514)`);
  return {
    base,
    base_text: format_dn(base),
    people: child_dn("ou", CONTAINERS.people, base),
    groups: child_dn("ou", CONTAINERS.groups, base),
    services: child_dn("ou", CONTAINERS.services, base),
  };
}

export function user_dn(tree: Tree, username: string): string {
  return format_dn(child_dn("uid", username, tree.people));
}

export function group_dn(tree: Tree, name: string): string {
  return format_dn(child_dn("cn", name, tree.groups));
}

export function service_dn(tree: Tree, name: string): string {
  return format_dn(child_dn("cn", name, tree.services));
}

/** What a DN names. `none` carries the deepest existing entry above it ("" when none is). */
export type Place =
  | { kind: "root_dse" }
  | { kind: "base" | "people" | "groups" }
  | { kind: "user"; username: string }
  | { kind: "group"; name: string }
  | { kind: "service"; name: string }
  | { kind: "none"; matched: string }
  | { kind: "invalid" };

const rdn_key = (rdn: Rdn) => dn_key([rdn]);

/** The one value of a single-valued RDN of `type`; null otherwise. */
function single(rdn: Rdn | undefined, type: string): string | null {
  return rdn !== undefined && rdn.length === 1 && rdn[0]!.type === type ? rdn[0]!.value : null;
}

export function locate(tree: Tree, text: string): Place {
  const dn = parse_dn(text);
  if (dn === null) return { kind: "invalid" };
  if (dn.length === 0) return { kind: "root_dse" };
  const depth = dn.length - tree.base.length;
  if (depth < 0 || dn_key(dn.slice(depth)) !== dn_key(tree.base)) return { kind: "none", matched: "" };
  if (depth === 0) return { kind: "base" };
  const container = dn[depth - 1]!;
  const which = ([CONTAINERS.people, CONTAINERS.groups, CONTAINERS.services] as const).find((name) => rdn_key(container) === rdn_key([{ type: "ou", value: name }]));
  if (which === undefined) return { kind: "none", matched: tree.base_text };
  const container_text = format_dn(child_dn("ou", which, tree.base));
  if (depth === 1) return which === "services" ? { kind: "none", matched: tree.base_text } : { kind: which };
  if (depth > 2) return { kind: "none", matched: which === "services" ? tree.base_text : container_text };
  const leaf = dn[0];
  if (which === "people") {
    const username = single(leaf, "uid");
    return username === null ? { kind: "none", matched: container_text } : { kind: "user", username };
  }
  const name = single(leaf, "cn");
  if (name === null) return { kind: "none", matched: which === "services" ? tree.base_text : container_text };
  return which === "groups" ? { kind: "group", name } : { kind: "service", name };
}
