/**
 * Distinguished names (RFC 4514): parsing the string form clients send, writing ours with the
 * escapes §2.4 asks for, and the one key two DNs are compared by. The key lower-cases attribute
 * types (and maps the OIDs and long names of the few types our tree names to their short
 * names), and compares values as caseIgnoreMatch does (RFC 4517 §4.2.11 with the insignificant
 * space handling of RFC 4518 §2.6.1), after the Unicode normalisation usernames get
 * (store/usernames.ts): `UID=Alice, OU=People,dc=Example,dc=COM` is `uid=alice,ou=people,dc=example,dc=com`.
 * A hex value (`#04…`, §2.4) is refused: no entry of ours is named by one.
 */
import { username_key } from "../../store/usernames.ts";

export type Ava = { type: string; value: string };
/** An RDN: one or more attribute values (joined by `+`). */
export type Rdn = Ava[];
/** RDNs leaf first, as written. */
export type Dn = Rdn[];

/** Other spellings of the naming attributes our tree uses (RFC 4519, RFC 4524 §2). */
const TYPE_ALIASES: Record<string, string> = {
  "2.5.4.3": "cn",
  commonname: "cn",
  "2.5.4.11": "ou",
  organizationalunitname: "ou",
  "0.9.2342.19200300.100.1.1": "uid",
  userid: "uid",
  "0.9.2342.19200300.100.1.25": "dc",
  domaincomponent: "dc",
  "2.5.4.10": "o",
  organizationname: "o",
};

const TYPE = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$/;
const UTF8 = new TextEncoder();
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
/** The characters §2.4 escapes anywhere in a value. */
const SPECIAL = new Set([",", "+", '"', "\\", "<", ">", ";", "="]);

/** An attribute type in the one spelling we compare: lower case, aliases mapped. */
export function type_key(type: string): string {
  const lower = type.toLowerCase();
  return TYPE_ALIASES[lower] ?? lower;
}

/** A value as caseIgnoreMatch compares it: normalised, lower case, runs of spaces as one, none at the ends. */
export function value_key(value: string): string {
  return username_key(value).replace(/\s+/g, " ").trim();
}

/** Parses the string form of a DN; null when it is not one (the caller answers invalidDNSyntax). */
export function parse_dn(text: string): Dn | null {
  const dn: Dn = [];
  if (text.trim() === "") return dn;
  let rdn: Rdn = [];
  let i = 0;
  while (i <= text.length) {
    // attributeType "="
    const eq = text.indexOf("=", i);
    if (eq < 0) return null;
    const type = text.slice(i, eq).trim();
    if (!TYPE.test(type)) return null;
    i = eq + 1;
    while (text[i] === " ") i++;
    if (text[i] === "#") return null;
    const bytes: number[] = [];
    // Unescaped trailing spaces are not part of the value (§2.4 escapes a significant one).
    let significant = 0;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === "," || c === "+") break;
      if (c === "\\") {
        const next = text[i + 1];
        if (next === undefined) return null;
        if (/[0-9a-fA-F]/.test(next)) {
          const pair = text.slice(i + 1, i + 3);
          if (!/^[0-9a-fA-F]{2}$/.test(pair)) return null;
          bytes.push(Number.parseInt(pair, 16));
          i += 2;
        } else {
          bytes.push(...UTF8.encode(next));
          i += 1;
        }
        significant = bytes.length;
        continue;
      }
      // §3: these must be escaped inside a value.
      if (c === '"' || c === ";" || c === "<" || c === ">" || c === "=") return null;
      const code = text.codePointAt(i)!;
      const char = String.fromCodePoint(code);
      bytes.push(...UTF8.encode(char));
      if (char.length === 2) i++;
      if (c !== " ") significant = bytes.length;
    }
    let value: string;
    try {
      value = STRICT_UTF8.decode(Uint8Array.from(bytes.slice(0, significant)));
    } catch {
      return null;
    }
    if (value === "") return null;
    rdn.push({ type: type_key(type), value });
    const separator = text[i];
    i++;
    if (separator !== "+") {
      dn.push(rdn);
      rdn = [];
      if (separator === undefined) break;
    }
  }
  return dn;
}

/** The key two DNs are equal by (the same entry); its RDNs' values in a fixed order. */
export function dn_key(dn: Dn): string {
  return dn
    .map((rdn) =>
      rdn
        .map((ava) => `${ava.type}=${escape_value(value_key(ava.value))}`)
        .sort()
        .join("+"),
    )
    .join(",");
}

/** The key of a DN in its string form; null when it is not a DN. */
export function dn_text_key(text: string): string | null {
  const dn = parse_dn(text);
  return dn === null ? null : dn_key(dn);
}

/** Escapes a value for the string form (RFC 4514 §2.4). */
export function escape_value(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (SPECIAL.has(c)) out += `\\${c}`;
    else if (c === "\u0000") out += "\\00";
    else if ((c === " " || c === "#") && i === 0) out += `\\${c}`;
    else if (c === " " && i === value.length - 1) out += "\\ ";
    else out += c;
  }
  return out;
}

/** The string form of a DN. */
export function format_dn(dn: Dn): string {
  return dn.map((rdn) => rdn.map((ava) => `${ava.type}=${escape_value(ava.value)}`).join("+")).join(",");
}

/** The DN made of one RDN `type=value` above `parent`. */
export function child_dn(type: string, value: string, parent: Dn): Dn {
  return [[{ type, value }], ...parent];
}

/** The base DN an issuer's host gives: `dc=` each label (`id.example.com` → `dc=id,dc=example,dc=com`); `dc=idp` for an IP address. */
export function base_dn_of_host(host: string): string {
  const name = host.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (name.includes(":") || /^[\d.]+$/.test(name) || name === "") return "dc=idp";
  return name
    .split(".")
    .map((label) => `dc=${escape_value(label)}`)
    .join(",");
}
