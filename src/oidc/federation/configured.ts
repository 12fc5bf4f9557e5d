/**
 * Upstreams declared in the config file (`federation.upstreams`), written to the store at start:
 * each is validated as `idp upstreams add` validates it (a bad one stops the start, naming the
 * upstream and the field), then added, or replaces the stored one of the same name. A new
 * issuer, kind or subject claim while accounts are linked under the old one stops the start too
 * (identity_source.ts: the same subject there may be someone else), as `idp upstreams update`
 * refuses it without --drop-links.
 */
import type { Provider } from "../provider.ts";
import { identity_source, source_changes } from "./identity_source.ts";
import { preset_input } from "./presets.ts";
import { new_upstream, type UpstreamInput } from "./upstreams.ts";

export async function apply_configured_upstreams(idp: Provider): Promise<void> {
  for (const entry of idp.config.federation.upstreams) {
    const { preset, tenant, ...fields } = entry;
    let input: UpstreamInput;
    try {
      const base = preset === undefined ? {} : preset_input(preset, tenant === undefined ? {} : { tenant });
      const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as UpstreamInput;
      input = { ...base, ...defined, claim_mapping: { ...(base.claim_mapping ?? {}), ...(fields.claim_mapping ?? {}) } };
    } catch (error) {
      throw new Error(`federation.upstreams "${entry.name}": ${(error as Error).message}`);
    }
    let row;
    try {
      row = new_upstream(idp.config, input);
    } catch (error) {
      throw new Error(`federation.upstreams "${entry.name}": ${(error as Error).message}`);
    }
    const existing = await idp.store.get_upstream(row.name);
    const moved = existing === null ? [] : source_changes(existing, row);
    const linked = moved.length === 0 ? 0 : await idp.store.count_stale_identities(row.name, identity_source(row));
    if (linked > 0) {
      throw new Error(
        `federation.upstreams "${row.name}": its ${moved.join(", ")} changed while ${linked} account${linked === 1 ? " is" : "s are"} linked through it under the old one (the same subject at the new one may be someone else): keep the old value, or make the change with \`idp upstreams update ${row.name} … --drop-links\` first`,
      );
    }
    if (existing === null) await idp.store.create_upstream(row);
    else await idp.store.update_upstream(row.name, row);
    idp.log({ level: "info", msg: "upstream configured", upstream: row.name, kind: row.kind, replaced: existing !== null });
  }
}
