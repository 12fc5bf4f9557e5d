/**
 * Address classification for the outbound fence (fetch.ts): which IP addresses are loopback,
 * private, link-local, unique-local, multicast, unspecified, shared or reserved (IPv4-mapped
 * and other IPv4-embedding IPv6 forms included), and the operator's allow list of host names
 * and ranges (`outbound.allow`). Pure functions: no lookups, no requests.
 */
import { isIP } from "node:net";
import type { Config } from "../../config/schema.ts";

export type OutboundSettings = Config["outbound"];

/** Why an address may not be a destination; null (from address_class) for a public address. */
export type AddressClass = "loopback" | "private" | "link_local" | "unique_local" | "multicast" | "unspecified" | "shared" | "reserved" | "invalid";

// ---------------------------------------------------------------------------------------------
// Addresses: every address as 16 bytes (IPv4 as IPv4-mapped IPv6, RFC 4291 §2.5.5.2), so one
// prefix comparison serves both families.

type Range = { bytes: Uint8Array; prefix: number };

function parse_ipv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

function mapped(v4: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  bytes.set(v4, 12);
  return bytes;
}

/** 16 bytes of an IPv4 or IPv6 address (brackets and an IPv6 zone id are ignored), or null. */
export function parse_ip(text: string): Uint8Array | null {
  let host = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = host.indexOf("%");
  if (zone !== -1) host = host.slice(0, zone);
  const family = isIP(host);
  if (family === 4) {
    const v4 = parse_ipv4(host);
    return v4 === null ? null : mapped(v4);
  }
  if (family !== 6) return null;
  let tail: number[] | null = null;
  if (host.includes(".")) {
    const last = host.lastIndexOf(":");
    tail = parse_ipv4(host.slice(last + 1));
    if (tail === null) return null;
    host = `${host.slice(0, last + 1)}0:0`;
  }
  const [head, rest] = host.split("::") as [string, string | undefined];
  const front = head === "" ? [] : head.split(":");
  const back = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups = rest === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const n = parseInt(group, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 0xff;
  });
  if (tail !== null) bytes.set(tail, 12);
  return bytes;
}

function in_range(bytes: Uint8Array, range: Range): boolean {
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== range.bytes[i]) return false;
  const bits = range.prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (bytes[whole]! & mask) === (range.bytes[whole]! & mask);
}

/** "10.0.0.0/8", "fd00::/8", or a single address ("127.0.0.1": /32, "::1": /128); null if invalid. */
export function parse_cidr(text: string): Range | null {
  const slash = text.indexOf("/");
  const address = slash === -1 ? text : text.slice(0, slash);
  const bytes = parse_ip(address);
  if (bytes === null || address.includes("%")) return null;
  const v4 = isIP(address) === 4;
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash !== -1) {
    const written = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(written) || Number(written) > max) return null;
    prefix = Number(written);
  }
  return { bytes, prefix: v4 ? prefix + 96 : prefix };
}

const range = (cidr: string): Range => parse_cidr(cidr)!;

/** IPv4 special-purpose ranges a provider must not call (RFC 6890, RFC 1918, RFC 6598, RFC 5771). */
const IPV4_BLOCKED: readonly [Range, AddressClass][] = [
  [range("0.0.0.0/8"), "unspecified"], // "this network" (RFC 1122 §3.2.1.3); 0.0.0.0 reaches the local host
  [range("10.0.0.0/8"), "private"],
  [range("100.64.0.0/10"), "shared"], // carrier-grade NAT (RFC 6598)
  [range("127.0.0.0/8"), "loopback"],
  [range("169.254.0.0/16"), "link_local"], // cloud metadata services live here (169.254.169.254)
  [range("172.16.0.0/12"), "private"],
  [range("192.0.0.0/24"), "reserved"], // IETF protocol assignments (RFC 6890)
  [range("192.168.0.0/16"), "private"],
  [range("198.18.0.0/15"), "reserved"], // benchmarking (RFC 2544)
  [range("224.0.0.0/4"), "multicast"],
  [range("240.0.0.0/4"), "reserved"], // future use, and 255.255.255.255 broadcast
];

/** IPv6 special-purpose ranges (RFC 4291, RFC 4193, RFC 3879, RFC 6666). */
const IPV6_BLOCKED: readonly [Range, AddressClass][] = [
  [range("::/128"), "unspecified"],
  [range("::1/128"), "loopback"],
  [range("fe80::/10"), "link_local"],
  [range("fec0::/10"), "private"], // deprecated site-local (RFC 3879)
  [range("fc00::/7"), "unique_local"],
  [range("ff00::/8"), "multicast"],
  [range("100::/64"), "reserved"], // discard-only (RFC 6666)
];

const IPV4_MAPPED = range("::ffff:0:0/96");
/** IPv6 forms that carry an IPv4 address a packet may end up at: classified by that address. */
const IPV4_EMBEDDING: readonly [Range, number][] = [
  [range("64:ff9b::/96"), 12], // NAT64 well-known prefix (RFC 6052)
  [range("64:ff9b:1::/48"), 12], // NAT64 local use (RFC 8215)
  [range("::/96"), 12], // IPv4-compatible, deprecated (RFC 4291 §2.5.5.1)
  [range("2002::/16"), 2], // 6to4 (RFC 3056)
];

function class_of_v4(v4: Uint8Array): AddressClass | null {
  const as_mapped = mapped([...v4]);
  return IPV4_BLOCKED.find(([r]) => in_range(as_mapped, r))?.[1] ?? null;
}

/** Why `ip` may not be called (a class), or null for a public address. */
export function address_class(ip: string): AddressClass | null {
  const bytes = parse_ip(ip);
  if (bytes === null) return "invalid";
  if (in_range(bytes, IPV4_MAPPED)) return class_of_v4(bytes.subarray(12));
  const v6 = IPV6_BLOCKED.find(([r]) => in_range(bytes, r))?.[1];
  if (v6 !== undefined) return v6;
  for (const [r, at] of IPV4_EMBEDDING) if (in_range(bytes, r)) return class_of_v4(bytes.subarray(at, at + 4));
  return null;
}

// ---------------------------------------------------------------------------------------------
// The operator's allow-list (outbound.allow): host names, addresses and CIDR ranges.

export type AllowList = { readonly hosts: ReadonlySet<string>; readonly ranges: readonly Range[] };

const allow_lists = new WeakMap<readonly string[], AllowList>();

export const host_key = (host: string): string => host.toLowerCase().replace(/\.$/, "");

export function allow_list(entries: readonly string[]): AllowList {
  let list = allow_lists.get(entries);
  if (list === undefined) {
    const hosts = new Set<string>();
    const ranges: Range[] = [];
    for (const entry of entries) {
      const cidr = parse_cidr(entry);
      if (cidr !== null) ranges.push(cidr);
      else hosts.add(host_key(entry));
    }
    allow_lists.set(entries, (list = { hosts, ranges }));
  }
  return list;
}

export function allowed_address(bytes: Uint8Array, allow: AllowList): boolean {
  return allow.ranges.some((r) => in_range(bytes, r));
}

/**
 * Why the host of a URL is refused as written, without asking DNS: an IP literal of a blocked
 * class that the allow-list does not cover. Null for names (they are checked when fetched) and
 * for public or allow-listed addresses. Registration uses it to refuse what can never be called.
 */
export function literal_host_problem(hostname: string, allow: readonly string[]): string | null {
  const bytes = parse_ip(hostname);
  if (bytes === null) return null;
  const list = allow_list(allow);
  if (list.hosts.has(host_key(hostname.replace(/^\[|\]$/g, ""))) || allowed_address(bytes, list)) return null;
  const kind = address_class(hostname);
  return kind === null ? null : `is not a public address (${kind})`;
}

// ---------------------------------------------------------------------------------------------
// Refusals and failures.
