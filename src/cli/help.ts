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
  users                      manage end users (add, invite, list, show, remove, set-password, send-reset, reset-2fa, passkeys)
  groups                     manage groups of users and their members (add, list, remove, members)
  upstreams                  other identity providers to sign in with (add, update, list, show, remove, disable, enable)
  clients                    manage relying parties (add, list, show, update, remove, rotate-secret)
  resources                  resource servers for resource indicators and JWT access tokens (add, list, show, remove)
  keys                       list and rotate signing keys
  registration-token         initial access tokens for dynamic client registration (create, list, revoke)
  audit list                 show the audit log
  mail                       the outgoing mail queue (list, retry) and a test message (test)
  config check               validate the configuration and print it (secrets masked)
  help [command]             show help for a command
  --version                  print the version

Configuration comes from the environment (DATABASE_URL, IDP_ISSUER, PORT, HOST, ...) and the
optional JSON file named by IDP_CONFIG; see \`idp config check\`.

${COMMON}
`;

export const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: idp serve [--production] [--port N] [--host H] [--demo] [--workers N|auto]

Starts the HTTP server (applying pending migrations first); stops cleanly on SIGINT/SIGTERM.
\`idp\` with no command does the same.
  --production   production mode (same as IDP_PRODUCTION=true)
  --port N       port to listen on (overrides PORT; 0 picks a free port)
  --host H       address to bind (overrides HOST)
  --demo         on an empty database, outside production, create a demo user and the
                 built-in demo application (/demo) and print how to sign in (npm start)
  --workers N    run N server processes sharing the port (overrides IDP_WORKERS; auto = one
                 per core): a primary applies the migrations, starts them, restarts one that
                 dies and stops them all on SIGTERM/SIGINT. Needs a SQLite file or PostgreSQL.
`,
  migrate: `Usage: idp migrate [--json]

Applies pending migrations to the database named by DATABASE_URL and prints the schema version.
`,
  users: `Usage:
  idp users add <username> --password-stdin [--email E] [--email-verified] [--name N]
                [--given-name G] [--family-name F] [--picture URL] [--phone P]
                [--phone-verified] [--address-json JSON]
  idp users invite <email> [--name N] [--username U]
  idp users list
  idp users show <username>
  idp users remove <username>
  idp users set-password <username> --password-stdin
  idp users send-reset <username>
  idp users reset-2fa <username>
  idp users passkeys list <username>
  idp users passkeys remove <username> <id> [--force]

passkeys list shows a user's passkeys (id, name, when added and last used, whether synced);
passkeys remove deletes one (a lost or stolen device) and ends the user's sessions. The last
passkey of a user without a password is only removed with --force (they could not sign in).
The password is read from standard input (one trailing newline is removed) and must meet the
password policy: at least IDP_PASSWORD_MIN_LENGTH characters (10 by default), at most
IDP_PASSWORD_MAX_LENGTH, not one of the 10,000 most common passwords, and not the username or
the e-mail address; it is stored as an argon2id hash. set-password also ends the user's
sessions, revokes the tokens issued in them and voids the user's password reset links.
send-reset mails the user a password reset link (valid IDP_PASSWORD_RESET_TTL seconds, 30
minutes by default; a running server delivers it); it needs mail and an e-mail address on the
account, and is refused for invited and disabled users. list and show print each user's status
(active, unverified, invited or disabled). reset-2fa removes the second factors (the
authenticator app, the recovery codes and every passkey) of a user who lost them, and also ends
the user's sessions; the user signs in with the password and can set them up again. show never prints the password hash or the
TOTP secret. invite creates an account with no password (status invited) and mails the
address a link to choose a username and password (valid IDP_INVITATION_TTL seconds, 7 days by
default; a running server delivers the mail); it needs IDP_SIGNUP=invite or open, and mail.
Inviting the same address again sends a new link (the older one stops working); an address
that already belongs to an account that is not invited is refused.
--address-json takes an OIDC address object, e.g.
'{"street_address":"1 Main St","locality":"Springfield","country":"US"}'.

${COMMON}
`,
  clients: `Usage:
  idp clients add --name N --redirect-uri U [--redirect-uri U2 ...]
                  [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
                  [--grant-type authorization_code|refresh_token|client_credentials|
                                urn:ietf:params:oauth:grant-type:device_code|
                                urn:ietf:params:oauth:grant-type:token-exchange ...]
                  [--post-logout-redirect-uri U ...] [--skip-consent]
                  [--scope "openid profile ..."] [--application-type web|native]
                  [--jwks-uri URL | --jwks-json JSON] [--backchannel-logout-uri URL]
                  [--logo-uri URL] [--policy-uri URL] [--tos-uri URL] [--client-uri URL]
                  [--resource-server] [--groups-claim NAME] [--groups-prefix P]
                  [--strip-groups-prefix] [--role GROUP=VALUE ...] [--allowed-group G ...]
                  [--require-2fa] [--admin] [--require-par] [--dpop-bound] [--fapi 2.0]
                  [--token-exchange impersonation|delegation|both
                   --token-exchange-from CLIENT_ID|* ... --token-exchange-resource URI ...]
  idp clients list
  idp clients show <client_id>
  idp clients remove <client_id>
  idp clients update <client_id> [--groups-claim NAME] [--groups-prefix P]
                  [--strip-groups-prefix] [--role GROUP=VALUE ...] [--allowed-group G ...]
                  [--clear groups_claim|groups_prefix|groups_prefix_strip|roles|allowed_groups ...]
                  [--require-2fa on|off] [--admin on|off] [--fapi 2.0|off]
                  [--token-exchange impersonation|delegation|both|off
                   --token-exchange-from CLIENT_ID|* ... --token-exchange-resource URI ...]
  idp clients rotate-secret <client_id>

add prints the client_id and the client_secret; the secret is shown only once (it is stored
as a SHA-256 hash) — rotate-secret replaces it and prints the new one once. Defaults:
--auth-method client_secret_basic, --grant-type authorization_code and refresh_token,
--application-type web. Public clients (--auth-method none) get no secret and must use PKCE.
private_key_jwt needs --jwks-uri or --jwks-json.
A device (a TV, a command line) uses the device grant (RFC 8628) with
--grant-type urn:ietf:params:oauth:grant-type:device_code (and refresh_token for offline_access);
it needs no --redirect-uri unless it uses authorization_code too.

--resource-server lets the client (an API; it must authenticate) introspect access tokens
issued to other clients at POST /introspect; show lists it as resource_server.
--logo-uri, --policy-uri, --tos-uri, --client-uri: https URLs the consent page shows (the
application's logo, loaded by the user's browser; links to its privacy policy, terms, home page).
--backchannel-logout-uri receives a logout token when a user's session ends (OIDC Back-Channel
Logout); https, or http on localhost, 127.0.0.1 and [::1].
--require-par: the client's authorization requests must be pushed to POST /par (RFC 9126 §6
require_pushed_authorization_requests). --dpop-bound: its token requests must carry a DPoP
proof, so its access tokens are always DPoP-bound (RFC 9449 §5.2 dpop_bound_access_tokens).
Both are registrable by dynamic registration too.
--fapi 2.0: the client runs the FAPI 2.0 Security Profile (as IDP_FAPI=2.0 does for all
clients): pushed requests, PKCE S256, DPoP-bound tokens, private_key_jwt (--auth-method
private_key_jwt with --jwks-uri or --jwks-json), https redirect URIs, PS256/ES256/EdDSA
signatures, codes valid 60 s. Registrable by dynamic registration too (fapi_profile "2.0").
--require-2fa: every sign-in to this client needs a second factor (TOTP or a passkey) after a
password, as IDP_REQUIRE_2FA=all does for all clients; a user without one adds a passkey before
going on. Never settable by dynamic registration.
--admin: the client may get the scope admin from the client_credentials grant (it needs
--grant-type client_credentials and a secret or keys): its access tokens call the admin REST
API under /admin/api/v1. update --admin off takes the power away at once, tokens already
issued included. Never settable by dynamic registration.

--token-exchange: the client may use token exchange (RFC 8693; it needs --grant-type
urn:ietf:params:oauth:grant-type:token-exchange and a secret or keys) to trade access tokens
issued to the clients named by --token-exchange-from (* for any) for a token for one of the
resources named by --token-exchange-resource (registered with idp resources add):
impersonation without an actor_token, delegation with one (the new token names the actor in
act). update replaces the whole policy; off removes it. Never settable by dynamic registration.

Groups (released with the scope groups; never settable by dynamic registration):
--groups-claim names the groups claim (default groups; registered names such as sub are
refused). --groups-prefix releases only the groups starting with it; --strip-groups-prefix
removes it from the names. --role GROUP=VALUE adds VALUE to a "roles" claim for members of
GROUP. --allowed-group admits only members of these groups: anyone else gets access_denied at
sign-in and invalid_grant at the next refresh. The groups named must exist. update replaces
the members given and leaves the rest; --clear removes one.

Redirect URIs must be absolute, without a fragment; http is allowed only for localhost,
127.0.0.1 and [::1]; custom schemes (com.example.app:/callback) only with
--application-type native.

${COMMON}
`,
  resources: `Usage:
  idp resources add <uri> --scope S [--scope S ...] [--format opaque|jwt] [--ttl SECONDS]
  idp resources list
  idp resources show <uri>
  idp resources remove <uri>

A resource server is an API clients get access tokens for (RFC 8707 resource indicators): its
URI is absolute, without fragment. A client sends resource=<uri> at /authorize (repeatable) and
/token, or with client_credentials; the access token is then audience-restricted to it and
carries only the granted scopes the resource accepts (--scope, repeatable or space-separated).
An unregistered or unauthorized resource gets invalid_target. --format jwt issues RFC 9068 JWT
access tokens (typ at+jwt, aud the resource, signed with the provider's keys, still revocable
and introspectable); opaque (the default) tokens are checked by introspection. --ttl overrides
IDP_ACCESS_TOKEN_TTL for this resource's tokens (60 to 86400 seconds).

${COMMON}
`,
  groups: `Usage:
  idp groups add <name> [--description D]
  idp groups list
  idp groups remove <name>
  idp groups members add <group> <username>
  idp groups members remove <group> <username>
  idp groups members list <group>

A group name has 1 to 64 ASCII letters, digits or - _ . : / and is unique whatever its case.
remove also removes the memberships. A user's groups are released to clients with the scope
groups (claims "groups" and "roles"); idp users show lists them. A client can rename the
claim, release only groups with a prefix, map groups to roles, and admit only members of some
groups (idp clients add|update --groups-claim, --groups-prefix, --role, --allowed-group): a
user removed from such a group is refused at the next sign-in and at the next token refresh.

${COMMON}
`,
  upstreams: `Usage:
  idp upstreams add <name> --issuer URL --client-id ID [--client-secret-stdin] [--scope S ...]
                  [--display-name "Company SSO"] [--policy jit|link] [--auto-link] [--claim LOCAL=UPSTREAM ...]
  idp upstreams add <name> --kind oauth2 --authorization-endpoint URL --token-endpoint URL
                  --userinfo-endpoint URL [--emails-endpoint URL] --client-id ID --client-secret-stdin
                  [--claim subject=id ...]
  idp upstreams add <name> --preset google|microsoft|github|gitlab [--tenant T] --client-id ID --client-secret-stdin
                  [--group-map UPSTREAM_GROUP=LOCAL_GROUP ...] [--trust-upstream-mfa] [--mfa-acr ACR ...]
                  [--auth private_key_jwt]
  idp upstreams update <name> [--issuer URL] [--kind oidc|oauth2] [--claim LOCAL=UPSTREAM ...] [--display-name N]
                  [--client-id ID] [--client-secret-stdin] [--scope S ...] [--policy jit|link] [--mfa-acr ACR ...]
                  [--auth private_key_jwt] [--*-endpoint URL] [--drop-links]
  idp upstreams group-map <name> [UPSTREAM_GROUP=LOCAL_GROUP ...]
  idp upstreams list
  idp upstreams show <name>
  idp upstreams remove <name>
  idp upstreams disable|enable <name>

An upstream is another identity provider users may sign in with: a button on the sign-in page,
or login_hint=idp:<name> in the authorization request to go there directly. Register the
redirect URI that add prints (<issuer>/federation/<name>/callback) at the upstream. The client
secret is read from standard input and stored encrypted with IDP_SECRET_KEY (32 bytes,
base64url); it is never printed. --policy jit (default) creates a local account on the first
sign-in; link requires the user to link from the account page. --auto-link links to an existing
account with the same e-mail, only when the upstream says it is verified and the local account
is active with that address verified here. --claim maps the local claims subject, name, email,
email_verified, picture, preferred_username, groups to the upstream's. The upstream's groups
change no membership here unless mapped: --group-map gitlab-org/ops=ops makes members of the
upstream group gitlab-org/ops members of the existing local group ops at each sign-in through
the upstream, and removes that membership when the upstream stops asserting the group (never
one an administrator added). group-map replaces an upstream's mapping (none: clears it).
--trust-upstream-mfa lets the upstream's multi-factor sign-in (amr, or an acr of --mfa-acr)
stand in for the local second factor; by default the local one is asked for. --auth
private_key_jwt authenticates at the upstream with an assertion signed by our own key (no
secret; register <issuer>/.well-known/jwks.json there). remove unlinks
every account linked through the upstream. update changes the fields given (--claim joins the
stored mapping); a new issuer, kind, user endpoint (oauth2) or subject claim is refused while
accounts are linked through the upstream (a subject is unique only at its issuer: the same one
at the new issuer may be someone else), unless --drop-links, which deletes those links (their
users sign in another way and link again; the audit records how many).

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
  mail: `Usage:
  idp mail list [--failed] [--limit N]
  idp mail retry <id>
  idp mail test <address>

list prints the outbox, newest first (default limit 100): queued, sending, sent and failed
messages with their recipient, template, attempts and last error, never their bodies (they may
hold single-use links). --failed shows only the messages given up on. Sent messages are kept 7
days, failed ones 30 days past their last attempt.

retry puts a failed message back in the queue; a running server sends it within moments.

test queues a test message to <address>. With IDP_SMTP_URL set it is delivered at once and the
outcome is printed (exit 1 when the server refused it or could not be reached: the message then
stays queued for the server to retry). In development without IDP_SMTP_URL the running server
writes it to its log. In production without IDP_SMTP_URL mail is off and the command fails.

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
