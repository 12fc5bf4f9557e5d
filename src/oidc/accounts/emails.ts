/**
 * E-mail addresses people type (sign-up, invitations, e-mail change): one check, one spelling.
 *
 * An address is kept as typed in its local part (RFC 5321 §2.4: the local part belongs to the
 * receiving host, which may tell cases apart) and with its domain in one spelling: lower-case
 * Unicode (U-labels, RFC 5890 §2.3.2.1), so "Bob@Bücher.DE" and "bob@xn--bcher-kva.de" are
 * the same account address. Comparisons (`address_key`) ignore case in the whole address, as
 * every mail provider people use does.
 */
import { domainToUnicode } from "node:url";
import { signup_domain } from "../../config/schema.ts";

/** RFC 5321 §4.5.3.1: 64 octets of local part, 254 of forward-path content. */
const MAX_LOCAL = 64;
const MAX_ADDRESS = 254;
/** A dot-atom local part (RFC 5322 §3.4.1) with Unicode letters allowed (RFC 6531 §3.3); no quoted strings. */
const LOCAL = /^[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}\p{M}!#$%&'*+/=?^_`{|}~-]+)*$/u;

export type ParsedAddress = {
  /** The address to store and to send to: local part as typed, domain in lower-case U-labels. */
  email: string;
  /** The domain in lower-case A-labels, as IDP_SIGNUP_DOMAINS lists it. */
  domain: string;
};

/** The address in its stored spelling, or the reason it is refused (a sentence naming the field `label`). */
export function parse_address(input: string, label = "E-mail address"): ParsedAddress | { problem: string } {
  const typed = input.trim().normalize("NFC");
  if (typed === "") return { problem: `${label}: enter an e-mail address.` };
  const at = typed.lastIndexOf("@");
  const local = at === -1 ? "" : typed.slice(0, at);
  const domain_part = at === -1 ? "" : typed.slice(at + 1);
  if (at <= 0 || domain_part === "") return { problem: `${label}: “${typed}” is not an e-mail address (name@example.com).` };
  if ([...local].length > MAX_LOCAL || !LOCAL.test(local)) return { problem: `${label}: the part before @ is not valid (letters, digits and . _ + - only, no spaces).` };
  const domain = signup_domain(domain_part);
  if (domain === null) return { problem: `${label}: “${domain_part}” is not a domain name.` };
  const email = `${local}@${domainToUnicode(domain)}`;
  if (new TextEncoder().encode(email).length > MAX_ADDRESS) return { problem: `${label}: the address is too long (at most ${MAX_ADDRESS} characters).` };
  return { email, domain };
}

/** The comparison key of a stored address: case-insensitive, the domain as A-labels. */
export function address_key(email: string): string {
  const at = email.lastIndexOf("@");
  const domain = signup_domain(email.slice(at + 1)) ?? email.slice(at + 1).toLowerCase();
  return `${email.slice(0, at).toLowerCase()}@${domain}`;
}

/** IDP_SIGNUP_DOMAINS: exact domain match (a subdomain is another domain); an empty list allows any. */
export function domain_allowed(allowed: readonly string[], domain: string): boolean {
  return allowed.length === 0 || allowed.includes(domain);
}
