/**
 * Debian's OpenLDAP clients (ldap-utils) as child processes, and their LDIF read back: what an
 * operator or a script would run against the directory. `has_ldap_utils()` is false where they
 * are not installed (the tests then skip, saying so).
 */
import { Buffer } from "node:buffer";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Run = { code: number; stdout: string; stderr: string };

export function has_tool(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const has_ldap_utils = (): boolean => has_tool("ldapsearch") && has_tool("ldapwhoami");

/** An empty HOME: no ~/.ldaprc of whoever runs the tests changes what the tools do. */
const HOME = mkdtempSync(join(tmpdir(), "idp-ldap-home-"));

/** Runs an ldap-utils tool trusting `cacert` for StartTLS and LDAPS. */
export function ldap_tool(tool: string, args: string[], cacert: string, stdin = ""): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      tool,
      args,
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME, LDAPTLS_CACERT: cacert, LDAPTLS_REQCERT: "demand" }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

export type LdifEntry = { dn: string; attributes: Record<string, string[]> };

/** Entries of `ldapsearch -LLL -o ldif-wrap=no` output (attribute names in lower case). */
export function parse_ldif(text: string): LdifEntry[] {
  const entries: LdifEntry[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    if (lines.length === 0) continue;
    const entry: LdifEntry = { dn: "", attributes: {} };
    for (const line of lines) {
      const m = /^([^:]+)(::?) ?(.*)$/.exec(line);
      if (m === null) continue;
      const [, name, sep, raw] = m;
      const value = sep === "::" ? Buffer.from(raw!, "base64").toString("utf8") : raw!;
      if (name!.toLowerCase() === "dn") entry.dn = value;
      else (entry.attributes[name!.toLowerCase()] ??= []).push(value);
    }
    entries.push(entry);
  }
  return entries;
}
