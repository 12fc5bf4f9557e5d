/**
 * The warnings `idp config check` prints (valid but risky settings, and what protects the data
 * at rest); the admin console's dashboard shows the same (the provider's `about`, app/provider.ts).
 */
import { at_rest_warnings } from "./at_rest.ts";
import { is_loopback_issuer, type Config } from "./config.ts";
import { mail_off_warning } from "./mail/outbox.ts";
import { rp_id_problem } from "../oidc/signin/passkeys/rp_id.ts";
import { parse_database_url } from "../store/open.ts";
import { sqlite_write_problem } from "../store/sqlite/writable.ts";

/** Valid but risky settings, worth a line on stderr. */
export function config_warnings(config: Config): string[] {
  const warnings: string[] = [];
  const loopback = is_loopback_issuer(config);
  if (config.issuer.startsWith("http:") && !loopback) {
    warnings.push(`issuer ${config.issuer} uses http on a public host; relying parties require https`);
  }
  if (config.production && loopback) warnings.push(`production mode with a loopback issuer (${config.issuer}); set IDP_ISSUER`);
  if (config.production && config.registration === "open") warnings.push("production mode with open dynamic registration (IDP_REGISTRATION=open)");
  // WebAuthn §5.1.4.1 and §13.4.9: a secure context, and an RP ID that is a domain (not an IP
  // address); the pages then offer no passkeys (oidc/signin/passkeys/rp_id.ts).
  const rp_problem = config.passkeys ? rp_id_problem(config.issuer) : null;
  if (rp_problem !== null) {
    warnings.push(
      `passkeys need an https issuer with a domain name (http://localhost in development); they cannot work at ${config.issuer}: ${rp_problem}. The pages do not offer them (IDP_PASSKEYS=off hides them everywhere)`,
    );
  }
  // Forward authentication reads the proxied request from the proxy's headers, only from a trusted proxy.
  if (config.forward_auth.cookie_domain !== undefined && !config.trust_proxy) {
    warnings.push("forward authentication is on (IDP_FORWARD_AUTH_COOKIE_DOMAIN) but IDP_TRUST_PROXY is off: /forward-auth refuses every check until the proxy is trusted");
  }
  const without_mail = mail_off_warning(config);
  if (without_mail !== null) warnings.push(without_mail);
  // The server would refuse to start (the store asks the same before opening the file).
  const database = parse_database_url(config.database_url);
  const unwritable = database.kind === "sqlite" ? sqlite_write_problem(database.path) : null;
  if (unwritable !== null) warnings.push(`database_url (DATABASE_URL): ${unwritable}`);
  return warnings;
}

/** Every warning of `idp config check`: config_warnings, then what protects the data at rest (the database files' modes…, app/at_rest.ts, logged at start too). */
export function check_warnings(config: Config): string[] {
  return [...config_warnings(config), ...at_rest_warnings(config)];
}
