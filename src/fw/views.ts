// Templates on Eta with autoescaping. Templates are registered by name (no extension):
// from a folder in development (re-read when `reload` is on) or from an embedded map
// for the single executable. Inside templates: layout("@layout"), include("@partial", it).
import { Eta } from "eta";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { AnyEndpointClass } from "./endpoint.ts";
import { Html } from "./response.ts";

export type TemplateMap = Record<string, string>;

export function read_templates(dir: string): TemplateMap {
  const out: TemplateMap = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".eta")) out[relative(dir, full).slice(0, -4).split("\\").join("/")] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

export class ViewEngine {
  private eta = new Eta({ autoEscape: true, autoTrim: false, cache: true, useWith: false });
  private names = new Set<string>();

  constructor(private readonly source: { dir: string; reload?: boolean } | { templates: TemplateMap }) {
    this.load();
  }

  private load(): void {
    const templates = "templates" in this.source ? this.source.templates : read_templates(this.source.dir);
    this.eta = new Eta({ autoEscape: true, autoTrim: false, cache: true, useWith: false });
    this.names.clear();
    for (const [name, text] of Object.entries(templates)) {
      this.eta.loadTemplate(`@${name}`, text);
      this.names.add(name);
    }
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  render(name: string, values: Record<string, unknown> = {}): string {
    if ("dir" in this.source && this.source.reload) this.load();
    if (!this.names.has(name)) throw new Error(`No template named "${name}"`);
    return this.eta.render(`@${name}`, values);
  }
}

/**
 * Values every template of one request sees (the page's language, its translator), set by a
 * handler before the endpoint runs: `context.state.view_locals`. They win over the endpoint's
 * values of the same name (the handler knows the request; an endpoint's view model gives defaults).
 */
export function view_locals(state: Record<string, unknown>): Record<string, unknown> {
  const locals = state.view_locals;
  return typeof locals === "object" && locals !== null ? (locals as Record<string, unknown>) : {};
}

/** Adds `view(template, values)` to an endpoint class: renders with the app's ViewEngine. */
export function Renderable<B extends AnyEndpointClass>(Base: B) {
  abstract class WithViews extends Base {
    view(template: string, values: Record<string, unknown> = {}, status?: number): Html {
      const views = this.context.app.views;
      if (!views) throw new Error("No ViewEngine configured: pass `views` to Fw.start");
      return new Html(views.render(template, { ...values, ...view_locals(this.context.state) }), status);
    }
  }
  return WithViews;
}
