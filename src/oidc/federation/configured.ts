/**
 * Upstreams declared in the config file (`federation.upstreams`), written to the store at start:
 * each is validated as `idp upstreams add` validates it (a bad one stops the start, naming the
 * upstream and the field), then added, or replaces the stored one of the same name.
 */
import type { Provider } from "../provider.ts";
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
    if (existing === null) await idp.store.create_upstream(row);
    else await idp.store.update_upstream(row.name, row);
    idp.log({ level: "info", msg: "upstream configured", upstream: row.name, kind: row.kind, replaced: existing !== null });
  }
}
