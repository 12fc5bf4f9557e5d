/**
 * Help texts: `idp --help`, `idp help <command>` and `idp <command> --help`. This is also the
 * command reference the README copies.
 */
import pkg from "../../package.json" with { type: "json" };
import { AUDIT_EVENT_TYPES } from "../store/types/audit.ts";

/** The version of this build, embedded from package.json at bundle time. */
export const VERSION: string = pkg.version;

/** Words joined into lines of at most 96 characters (after a 2-space indent on each line but the first). */
function wrap(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + word.length + 1 > 96) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n  ");
}

const COMMON = `Every command accepts --json (one machine-readable JSON document on stdout) and --help.
Exit codes: 0 success, 1 the command failed (invalid configuration, unknown user or client,
taken username, bad URL...), 2 usage error (unknown command or option, missing argument).`;

export const MAIN_HELP = `idp ${VERSION} — a self-hosted OpenID Connect identity provider

Usage: idp [command] [options]

Commands:
  serve                      start the server (the default when no command is given)
  migrate                    apply pending database migrations
  users                      manage end users (add, list, show, remove, set-password, reset-2fa)
  clients                    manage relying parties (add, list, show, remove, rotate-secret)
  keys                       list and rotate signing keys
  registration-token         initial access tokens for dynamic client registration (create, list, revoke)
  audit list                 show the audit log
  config check               validate the configuration and print it (secrets masked)
  help [command]             show help for a command
  --version                  print the version

Configuration comes from the environment (DATABASE_URL, IDP_ISSUER, PORT, HOST, ...) and the
optional JSON file named by IDP_CONFIG; see \`idp config check\`.

${COMMON}
`;

export const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: idp serve [--production] [--port N] [--host H] [--demo]

Starts the HTTP server (applying pending migrations first); stops cleanly on SIGINT/SIGTERM.
\`idp\` with no command does the same.
  --production   production mode (same as IDP_PRODUCTION=true)
  --port N       port to listen on (overrides PORT; 0 picks a free port)
  --host H       address to bind (overrides HOST)
  --demo         on an empty database, outside production, create a demo user and the
                 built-in demo application (/demo) and print how to sign in (npm start)
`,
  migrate: `Usage: idp migrate [--json]

Applies pending migrations to the database named by DATABASE_URL and prints the schema version.
`,
  users: `Usage:
  idp users add <username> --password-stdin [--email E] [--email-verified] [--name N]
                [--given-name G] [--family-name F] [--picture URL] [--phone P]
                [--phone-verified] [--address-json JSON]
  idp users list
  idp users show <username>
  idp users remove <username>
  idp users set-password <username> --password-stdin
  idp users reset-2fa <username>

The password is read from standard input (one trailing newline is removed) and must have at
least 8 characters; it is stored as an argon2id hash. set-password also ends the user's
sessions and revokes the tokens issued in them. reset-2fa removes two-step verification (the
authenticator app and the recovery codes) of a user who lost them, and also ends the user's
sessions; the user signs in with the password and can set up the app again. show never prints the password hash or the
TOTP secret. --address-json takes an OIDC address object, e.g.
'{"street_address":"1 Main St","locality":"Springfield","country":"US"}'.

${COMMON}
`,
  clients: `Usage:
  idp clients add --name N --redirect-uri U [--redirect-uri U2 ...]
                  [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
                  [--grant-type authorization_code|refresh_token|client_credentials ...]
                  [--post-logout-redirect-uri U ...] [--skip-consent]
                  [--scope "openid profile ..."] [--application-type web|native]
                  [--jwks-uri URL | --jwks-json JSON] [--backchannel-logout-uri URL]
                  [--resource-server]
  idp clients list
  idp clients show <client_id>
  idp clients remove <client_id>
  idp clients rotate-secret <client_id>

add prints the client_id and the client_secret; the secret is shown only once (it is stored
as a SHA-256 hash) — rotate-secret replaces it and prints the new one once. Defaults:
--auth-method client_secret_basic, --grant-type authorization_code and refresh_token,
--application-type web. Public clients (--auth-method none) get no secret and must use PKCE.
private_key_jwt needs --jwks-uri or --jwks-json.

--resource-server lets the client (an API; it must authenticate) introspect access tokens
issued to other clients at POST /introspect; show lists it as resource_server.
--backchannel-logout-uri receives a logout token when a user's session ends (OIDC Back-Channel
Logout); https, or http on localhost, 127.0.0.1 and [::1].

Redirect URIs must be absolute, without a fragment; http is allowed only for localhost,
127.0.0.1 and [::1]; custom schemes (com.example.app:/callback) only with
--application-type native.

${COMMON}
`,
  keys: `Usage:
  idp keys list
  idp keys rotate [--alg RS256|PS256|ES256|EdDSA]

rotate promotes the published next key to active (it has been in the JWKS, so relying parties
already know it), prepares a new next key, and keeps the old key in the JWKS until the tokens
it signed expire. Without --alg every configured algorithm (IDP_SIGNING_ALGS) is rotated.

${COMMON}
`,
  "registration-token": `Usage:
  idp registration-token create [--expires-in DURATION] [--uses N]
  idp registration-token list
  idp registration-token revoke ID

create makes an initial access token for POST /register (RFC 7591 §3; used when
IDP_REGISTRATION=token). The token is printed once; only its SHA-256 hash is stored.
--expires-in is seconds or a number with a unit (90m, 24h, 7d); the default is 24h, 0 means
never. --uses N lets the token register at most N clients (default: no limit); a request
refused for its metadata does not spend a use.

list shows each token's id, creation and expiry times, uses left and status, never the token.
revoke deletes the token with that id: POST /register no longer accepts it.

${COMMON}
`,
  audit: `Usage: idp audit list [--user USERNAME|ID] [--client CLIENT_ID] [--type T]
                      [--since ISO-8601|UNIX-SECONDS] [--limit N]

Prints audit events, newest first (default limit 100), with the username and client name
beside each id (--json: "username" and "client_name"; null once deleted).

--type is one of: ${wrap(AUDIT_EVENT_TYPES.join(", "))}

${COMMON}
`,
  config: `Usage: idp config check [--json]

Validates the configuration (defaults < IDP_CONFIG file < environment) and prints the effective
values with secrets masked. Exits with 1 and names the bad key when it is invalid.
`,
};

/** Help for `command`, or the main help when there is none. */
export function help_for(command: string | undefined): string {
  return (command !== undefined && Object.hasOwn(COMMAND_HELP, command) && COMMAND_HELP[command]) || MAIN_HELP;
}
