/**
 * Apache with mod_auth_mellon (Debian's apache2 and libapache2-mod-auth-mellon) as a SAML
 * service provider for the tests: a generated configuration in a temporary directory, a loopback
 * port, never root (dropped to nobody when the tests run as root), and a page under /protected/
 * that shows what mellon passed on (the NameID and the attributes, by server-side include).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificate_pem } from "../../src/oidc/saml/certificate.ts";
import { sp_key, sp_metadata } from "../helpers/saml.ts";
import { free_port } from "../helpers/provider.ts";

const APACHE = "/usr/sbin/apache2";
const MODULES = "/usr/lib/apache2/modules";

export const mellon_available = existsSync(APACHE) && existsSync(join(MODULES, "mod_auth_mellon.so"));
if (!mellon_available) console.warn("mod_auth_mellon tests skipped: apt-get install apache2 libapache2-mod-auth-mellon");

/** The attributes the protected page shows, each in an element of that id. */
const SHOWN = ["MELLON_NAME_ID", "MELLON_uid", "MELLON_mail", "MELLON_displayName", "MELLON_memberOf", "REMOTE_USER"];

export type Mellon = {
  url: string;
  entity_id: string;
  acs: string;
  /** mellon's single logout service (HTTP-Redirect). */
  slo: string;
  /** The SP's metadata, to register with the provider. */
  metadata: string;
  log(): string;
  stop(): Promise<void>;
};

async function until_listening(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`apache2 exited (${child.exitCode}): ${log()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`apache2 did not listen: ${log()}`);
}

/** Starts Apache with mellon, trusting the identity provider whose metadata is `idp_metadata`. */
export async function start_mellon(idp_metadata: string): Promise<Mellon> {
  const dir = mkdtempSync(join(tmpdir(), "idp-mellon-"));
  const port = await free_port();
  const url = `http://127.0.0.1:${port}`;
  const entity_id = `${url}/mellon/metadata`;
  const acs = `${url}/mellon/postResponse`;
  const key = await sp_key(`127.0.0.1:${port}`);
  const slo = `${url}/mellon/logout`;
  const metadata = sp_metadata({ entity_id, acs: [acs], certificate: key.certificate, authn_requests_signed: true, want_assertions_signed: true, slo });
  writeFileSync(join(dir, "sp.key"), key.pem);
  writeFileSync(join(dir, "sp.crt"), certificate_pem(key.certificate));
  writeFileSync(join(dir, "sp.xml"), metadata);
  writeFileSync(join(dir, "idp.xml"), idp_metadata);
  mkdirSync(join(dir, "www/protected"), { recursive: true });
  mkdirSync(join(dir, "post"));
  writeFileSync(join(dir, "www/index.html"), "<!doctype html><title>Public</title><p>public</p>\n");
  writeFileSync(
    join(dir, "www/protected/index.shtml"),
    `<!doctype html><title>Protected</title>\n${SHOWN.map((name) => `<p id="${name}"><!--#echo var="${name}" --></p>`).join("\n")}\n`,
  );
  const conf = `
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${dir}/httpd.pid
DefaultRuntimeDir ${dir}
Mutex file:${dir} default
ErrorLog ${dir}/error.log
LogLevel warn auth_mellon:info
LoadModule mpm_prefork_module ${MODULES}/mod_mpm_prefork.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule mime_module ${MODULES}/mod_mime.so
LoadModule dir_module ${MODULES}/mod_dir.so
LoadModule include_module ${MODULES}/mod_include.so
LoadModule setenvif_module ${MODULES}/mod_setenvif.so
LoadModule auth_mellon_module ${MODULES}/mod_auth_mellon.so
StartServers 1
MinSpareServers 1
MaxSpareServers 2
TypesConfig /etc/mime.types
DocumentRoot ${dir}/www
DirectoryIndex index.shtml index.html
MellonCacheSize 100
MellonPostDirectory ${dir}/post
# Over http, mellon's cookie test (always SameSite=None, which needs Secure) would be dropped by
# the browser: without a SameSite attribute it is Lax, which the provider's same-site POST carries.
SetEnvIf Request_URI . MELLON_DISABLE_SAMESITE=1
<Directory ${dir}/www>
  Require all granted
</Directory>
<Location />
  MellonEnable info
  MellonEndpointPath /mellon
  MellonSPentityId "${entity_id}"
  MellonSPPrivateKeyFile ${dir}/sp.key
  MellonSPCertFile ${dir}/sp.crt
  MellonSPMetadataFile ${dir}/sp.xml
  MellonIdPMetadataFile ${dir}/idp.xml
  MellonSecureCookie Off
  MellonSignatureMethod rsa-sha256
</Location>
<Location /protected>
  AuthType Mellon
  MellonEnable auth
  Require valid-user
  Options +Includes
  AddType text/html .shtml
  AddOutputFilter INCLUDES .shtml
</Location>
`;
  writeFileSync(join(dir, "httpd.conf"), conf);
  // Never root: the tests' user, or nobody when that is root.
  const as_root = process.getuid?.() === 0;
  if (as_root) {
    chmodSync(dir, 0o777);
    for (const sub of ["www", "www/protected", "post"]) chmodSync(join(dir, sub), 0o777);
  }
  const command = as_root ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", APACHE] : [APACHE];
  const check = spawnSync(command[0]!, [...command.slice(1), "-t", "-f", join(dir, "httpd.conf")], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`apache2 -t: ${check.stderr}`);
  const child = spawn(command[0]!, [...command.slice(1), "-f", join(dir, "httpd.conf"), "-DFOREGROUND"], { stdio: "ignore" });
  const log = () => (existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8").slice(-4000) : "");
  await until_listening(url, child, log);
  return {
    url,
    entity_id,
    acs,
    slo,
    metadata,
    log,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
