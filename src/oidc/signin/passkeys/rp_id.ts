/**
 * Whether passkeys can work at all at the issuer, decided on the server so the pages never offer
 * a button the browser must refuse (its refusal, "127.0.0.1 is an invalid domain", is no words
 * for a person). The relying party is the issuer's host (ceremony.ts, relying_party):
 * - WebAuthn Level 3 §5.1.4.1 (and HTML's secure contexts): the ceremony runs only in a secure
 *   context, an https page or http://localhost;
 * - §5.1.4.1, §13.4.9: the RP ID is a valid domain, so never an IP address, and a registrable
 *   one: a single-label name other than localhost (`https://idp`) is a top-level domain, which
 *   browsers refuse as well. (A public suffix such as `co.uk` is refused by browsers too; nobody
 *   runs an issuer there, and the list is not shipped.)
 */
import { isIP } from "node:net";

/** Why passkeys cannot work at `issuer`, in the operator's words; null when they can. */
export function rp_id_problem(issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return "the issuer is not a URL";
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) return `${host} is an IP address, and a passkey belongs to a domain name`;
  if (url.protocol === "http:" && host !== "localhost") return "the issuer uses http, and browsers allow passkeys only on https pages (or http://localhost)";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "the issuer is neither https nor http";
  if (host !== "localhost" && !host.replace(/\.$/, "").includes(".")) return `${host} is a single-label name, not a registrable domain`;
  return null;
}

/** Whether the pages offer passkeys: switched on (IDP_PASSKEYS) and possible at the issuer. */
export function passkeys_usable(config: { passkeys: boolean; issuer: string }): boolean {
  return config.passkeys && rp_id_problem(config.issuer) === null;
}
