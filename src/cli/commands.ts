/**
 * The commands of `idp`, in the order `idp --help` lists them: each command file declares its
 * commands (spec.ts); this table names the top-level ones and says what each group is for. The
 * dispatcher (index.ts), the help (help.ts) and the command reference of docs/cli.md
 * (scripts/docs/sections/cli.ts) read it.
 */
import { AUDIT_EVENT_TYPES } from "../store/types/audit.ts";
import { admin_group } from "./admin.ts";
import { apps_commands } from "./apps.ts";
import { audit_commands } from "./audit.ts";
import { backup_group } from "./backup.ts";
import { clients_commands } from "./clients.ts";
import { config_commands } from "./config.ts";
import { groups_commands } from "./groups.ts";
import { keys_commands } from "./keys.ts";
import { ldap_commands } from "./ldap.ts";
import { mail_commands } from "./mail.ts";
import { webhook_commands } from "./webhooks.ts";
import { scim_token_commands } from "./scim.ts";
import { migrate_command } from "./migrate.ts";
import { registration_commands } from "./registration.ts";
import { resources_commands } from "./resources.ts";
import { saml_commands } from "./saml.ts";
import { ATTRIBUTE_CLAIMS, STANDARD_ATTRIBUTES } from "../oidc/saml/attributes.ts";
import { restore_command } from "./restore.ts";
import { export_command } from "./export.ts";
import { import_command } from "./import.ts";
import { serve_command } from "./serve.ts";
import { group, type Command, type CommandGroup } from "./spec.ts";
import { upstreams_commands } from "./upstreams.ts";
import { invite_command } from "./users_invite.ts";
import { send_reset_command } from "./users_reset.ts";
import { disable_command, enable_command } from "./users_status.ts";
import { users_commands } from "./users.ts";
import { update_command } from "./users_update.ts";
import { attributes_commands } from "./attributes.ts";

/** The top-level commands. Notes are paragraphs separated by blank lines (the help reflows them). */
export const COMMANDS: Record<string, Command | CommandGroup> = {
  serve: serve_command,
  migrate: migrate_command,
  backup: backup_group,
  restore: restore_command,
  export: export_command,
  import: import_command,
  users: group({
    summary: "manage end users",
    commands: { ...users_commands, update: update_command, enable: enable_command, disable: disable_command, invite: invite_command, "send-reset": send_reset_command },
    notes: `A password (--password-stdin) must meet the password policy: at least
IDP_PASSWORD_MIN_LENGTH characters (10 by default), at most IDP_PASSWORD_MAX_LENGTH, not one of
the 10,000 most common passwords, and not the username or the e-mail address; it is stored as an
argon2id hash.

reset-2fa is for a user who lost their authenticator app, recovery codes or passkeys: they sign
in with the password and can set them up again.

disable refuses every later sign-in and ends the user's sessions and tokens now, as the console
and the API do; enable lets a disabled user sign in again. The last active administrator (the
only active member of IDP_ADMIN_GROUP) is disabled or removed only with --force; idp admin grant
makes someone an administrator again.

invite needs IDP_SIGNUP=invite or open, and mail. The link is valid IDP_INVITATION_TTL seconds
(7 days by default); a running server delivers it. Inviting the same address again sends a new
link (the older one stops working); an address that already belongs to an account that is not
invited is refused.

send-reset needs mail and an e-mail address on the account, and is refused for invited and
disabled users. The link is valid IDP_PASSWORD_RESET_TTL seconds (30 minutes by default); a
running server delivers it, and it voids the older links.`,
  }),
  admin: admin_group,
  attributes: group({
    summary: "custom user attributes released as claims",
    commands: attributes_commands,
    notes: `An attribute has a name (1 to 64 ASCII letters, digits or _, starting with a letter; unique
whatever its case), a type (string, number, boolean or string[]), the scope that releases it
(profile by default, or a scope of your own that clients may then request) and the claim name it
is released under (its name unless --claim renames it; a registered claim such as sub, email or
name is refused). Its values are released in ID tokens and at /userinfo, as SAML attributes and on
LDAP user entries. Discovery lists the scopes and claim names. Set values with idp users update
NAME --attribute KEY=VALUE; --user-editable lets users edit it on the account page.`,
  }),
  groups: group({
    summary: "manage groups of users and their members",
    commands: groups_commands,
    notes: `A group name has 1 to 64 ASCII letters, digits or - _ . : / and is unique whatever its case.
A user's groups are released to clients with the scope groups (claims "groups" and "roles");
idp users show lists them. A client can rename the claim, release only groups with a prefix,
map groups to roles, and admit only members of some groups (idp clients add|update
--groups-claim, --groups-prefix, --role, --allowed-group).`,
  }),
  upstreams: group({
    summary: "other identity providers to sign in with",
    commands: upstreams_commands,
    notes: `An upstream is another identity provider users may sign in with: a button on the sign-in
page, or login_hint=idp:<name> in the authorization request to go there directly. Register the
redirect URI that add prints (<issuer>/federation/<name>/callback) at the upstream. The client
secret is stored encrypted with IDP_SECRET_KEY (32 bytes, base64url) and never printed.

The upstream's groups change no membership here unless mapped: --group-map gitlab-org/ops=ops
makes members of the upstream group gitlab-org/ops members of the existing local group ops at
each sign-in through the upstream, and removes that membership when the upstream stops asserting
the group (never one an administrator added).

Without --trust-upstream-mfa the local second factor is asked for; with it, the upstream's amr
(or an acr of --mfa-acr) saying it used several factors stands in. With --auth private_key_jwt,
register <issuer>/.well-known/jwks.json at the upstream.

update changes the fields given (--claim joins the stored mapping); a new issuer, kind, user
endpoint (oauth2) or subject claim is refused while accounts are linked through the upstream (a
subject is unique only at its issuer: the same one at the new issuer may be someone else),
unless --drop-links, which deletes those links (their users sign in another way and link again;
the audit records how many).`,
  }),
  clients: group({
    summary: "manage relying parties",
    commands: clients_commands,
    notes: `The client secret is stored as a SHA-256 hash. Public clients (--auth-method none) get no
secret and must use PKCE; private_key_jwt needs --jwks-uri or --jwks-json. A device (a TV, a
command line) uses the device grant (RFC 8628, --grant-type
urn:ietf:params:oauth:grant-type:device_code, with refresh_token for offline_access); it needs no
--redirect-uri unless it uses authorization_code too.

Redirect URIs must be absolute, without a fragment; http is allowed only for localhost,
127.0.0.1 and [::1]; custom schemes (com.example.app:/callback) only with --application-type
native. --backchannel-logout-uri takes https, or http on those hosts too. --logo-uri is loaded by
the user's browser.

--require-par, --dpop-bound and --fapi are registrable by dynamic registration too (fapi_profile
"2.0"); --resource-server, --require-2fa, --admin, --token-exchange and the group settings never
are.

--fapi 2.0 does for this client what IDP_FAPI=2.0 does for all: pushed requests, PKCE S256,
DPoP-bound tokens, private_key_jwt (--auth-method private_key_jwt with --jwks-uri or
--jwks-json), https redirect URIs, PS256/ES256/EdDSA signatures, codes valid 60 s.
--require-2fa does what IDP_REQUIRE_2FA=all does for all clients: a second factor (TOTP or a
passkey) after a password; a user without one adds a passkey before going on. --admin needs
--grant-type client_credentials and a secret or keys: its access tokens call the admin REST API
under /admin/api/v1.

--token-exchange needs a secret or keys. The client trades access tokens issued to the clients
named by --token-exchange-from for a token for one of the resources named by
--token-exchange-resource: impersonation without an actor_token, delegation with one (the new
token names the actor in act). update replaces the whole policy; off removes it.

Groups (released with the scope groups): --groups-claim refuses registered claim names such as
sub; the groups that --role and --allowed-group name must exist. Anyone outside the allowed
groups gets access_denied at sign-in and invalid_grant at the next refresh. update replaces the
settings given (--role and --allowed-group the whole map or list) and leaves the rest; --clear
removes one.

add and update warn (stderr) about a URL the provider will call (--jwks-uri,
--backchannel-logout-uri) that its outbound fence would refuse: http without
IDP_OUTBOUND_ALLOW_HTTP=true, a non-public address outside IDP_OUTBOUND_ALLOW.`,
  }),
  resources: group({
    summary: "resource servers for resource indicators and JWT access tokens",
    commands: resources_commands,
    notes: `A resource server is an API clients get access tokens for (RFC 8707 resource indicators). A
client sends resource=<uri> at /authorize (repeatable) and /token, or with client_credentials;
the access token is then audience-restricted to it and carries only the granted scopes the
resource accepts. An unregistered or unauthorized resource gets invalid_target. JWT access
tokens (--format jwt) have typ at+jwt and aud the resource, are signed with the provider's keys,
and stay revocable and introspectable.`,
  }),
  saml: group({
    summary: "SAML 2.0 service providers (applications that speak only SAML)",
    commands: saml_commands,
    notes: `A service provider is registered from its metadata: --metadata-file, or --metadata-url
(fetched through the outbound fence: https, a public address or one in IDP_OUTBOUND_ALLOW). Give
it our metadata: <issuer>/saml/metadata, which is also our entityID. Its users sign in on our
sign-in page, with the same session, second factor and passkeys as the OpenID applications.

The assertion goes only to an assertion consumer service (HTTP-POST) of its metadata. When the
metadata says AuthnRequestsSigned="true", an unsigned request is refused. The Assertion is signed
with RSA-SHA256 by the provider's RS256 key (idp keys rotate changes it; the next key is in our
metadata ahead of time); --sign response or both signs the Response too.

Attributes (both as the plain name and as its OID, urn:oid:...): ${STANDARD_ATTRIBUTES.map((a) => a.name).join(", ")}.
--attribute NAME=CLAIM adds one (or replaces a standard one); CLAIM is one of
${ATTRIBUTE_CLAIMS.join(", ")}.

update changes the settings given; --attribute and --allowed-group replace the whole map or
list.`,
  }),
  ldap: group({
    summary: "the read-only LDAP directory: service accounts for applications",
    commands: ldap_commands,
    notes: `The directory is served when IDP_LDAP_LISTEN (plain LDAP with StartTLS) or IDP_LDAPS_LISTEN
is set. Applications bind as a service account (cn=NAME,ou=services,<base>) to look users up,
then as the user (uid=<username>,ou=people,<base>) to check a password, which goes through the
sign-in page's throttles.

The password of add and rotate is 256 random bits, printed once and stored as a SHA-256 hash;
rotate replaces it at once. --group G limits the account's searches to the members of G (and
G itself); if G is deleted, the account sees nothing. A removed account's binds fail, and a
session bound with it sees nothing from its next request.`,
  }),
  apps: group({
    summary: "applications behind a reverse proxy that asks before each request (forward authentication)",
    commands: apps_commands,
    notes: `A protected application has no sign-in of its own: nginx (auth_request), Caddy (forward_auth)
or Traefik (ForwardAuth) asks <issuer>/forward-auth before each request and passes the user's
name, e-mail, full name and groups on in headers (Remote-User, Remote-Email, Remote-Name,
Remote-Groups). Forward authentication is on once IDP_FORWARD_AUTH_COOKIE_DOMAIN is set, and needs
IDP_TRUST_PROXY=true; deploy/forward-auth/ has the proxies' configuration.

--url is where the application is served; its host must be in IDP_FORWARD_AUTH_COOKIE_DOMAIN.
Several applications may share a host with different paths (https://example.com/grafana).

Who may open it: members of one of the --allowed-group groups, or any signed-in user without
one; --require-2fa asks for a second factor in the session (a user signed in with a password
alone is asked for it). --rule PREFIX=GROUPS sets who may open the paths under PREFIX instead:
groups comma-separated, or * for any signed-in user, and +2fa at the end for a second factor
there (--rule /admin=admins+2fa --rule /public=*). The longest prefix that matches a request's
path wins; paths compare decoded, at a segment boundary (/admin covers /admin/x, not /adminx).
The groups named must exist.

update replaces the fields given (--allowed-group the whole list, --rule every rule);
--clear-rules removes the rules. Changes apply to the next request.`,
  }),
  keys: group({
    summary: "list and rotate signing keys",
    commands: keys_commands,
    notes: `The next key has been in the JWKS, so relying parties already know it when rotate makes it
active; the old key stays in the JWKS until the tokens it signed expire. Running servers pick up
the change within seconds.`,
  }),
  "registration-token": group({
    summary: "initial access tokens for dynamic client registration",
    commands: registration_commands,
    notes: `A token lets POST /register register clients when IDP_REGISTRATION=token (RFC 7591 §3),
sent as Authorization: Bearer <token>. A request refused for its metadata does not spend a use.`,
  }),
  audit: group({
    summary: "show the audit log",
    commands: audit_commands,
    notes: `With --json each event has "username" and "client_name" beside the ids (null once deleted).

--type is one of: ${AUDIT_EVENT_TYPES.join(", ")}.`,
  }),
  mail: group({
    summary: "the outgoing mail queue and a test message",
    commands: mail_commands,
    notes: `Sent messages are kept 7 days, failed ones 30 days past their last attempt.

test exits with 1 when the mail server refused the message or could not be reached (it then stays
queued for the server to retry). In development without IDP_SMTP_URL the running server writes
the message to its log; in production without IDP_SMTP_URL mail is off and the command fails.`,
  }),
  webhooks: group({
    summary: "subscribe URLs to events, signed per Standard Webhooks; deliveries and retries",
    commands: webhook_commands,
    notes: `The signing secret is sealed under IDP_SECRET_KEY, which must be set. A URL is checked by the
outbound fence: https (http only with IDP_OUTBOUND_ALLOW_HTTP), and a private address only when
IDP_OUTBOUND_ALLOW lists it. A delivery is retried with backoff for a day, then stays failed
until \`retry\`. test exits with 1 when the receiver did not answer 2xx.`,
  }),
  scim: group({
    summary: "SCIM provisioning: long-lived bearer tokens for directories",
    commands: {
      tokens: group({
        summary: "bearer tokens for Entra ID's Secret Token or Okta's HTTP Header, stored hashed",
        commands: scim_token_commands,
        notes: `A token (idp_scim_…, 256 random bits) is printed once and stored as its SHA-256. It works
under /scim/v2 only, until it expires (--expires-days, 365 by default) or is revoked; calls
with it are audited under its name. The client-credentials token of an --admin client with
the scim scope works too.`,
      }),
    },
  }),
  config: group({
    summary: "validate the configuration and print it, secrets masked",
    commands: config_commands,
    notes: `An invalid configuration exits with 1, naming the bad key.

A setting without a value shows as \`key: (unset)\`; with --json, \`config\` leaves it out and
\`unset\` lists its key. Warnings (risky settings, features off, a SQLite database this user
cannot write) go to stderr, or to \`warnings\` with --json.`,
  }),
};
