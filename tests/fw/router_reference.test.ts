// The router against a brute-force reference: for random route sets and paths, find() must pick
// the same route as "try every route, keep the most specific" and extract the same parameters.
import { expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { METHODS, Router, RouterError, type Method } from "../../src/fw/router/index.ts";

type Seg = { kind: "static"; text: string } | { kind: "param"; name: string; source: string | null } | { kind: "wildcard" };
type Ref = { method: Method; pattern: string; segs: Seg[] };

const SEGMENTS = ["a", "b", "ab", "", ":p", ":p(\\d+)", ":p([a-c]+)", "*"];
const PATH_SEGMENTS = ["a", "b", "ab", "c", "1", "12", "", "%41", "%zz"];

function parse(pattern: string): Seg[] {
  return pattern
    .slice(1)
    .split("/")
    .map((s, k): Seg => {
      if (s === "*") return { kind: "wildcard" };
      const m = /^:(\w+)(?:\((.*)\))?$/.exec(s);
      return m === null ? { kind: "static", text: s } : { kind: "param", name: `${m[1]}${k}`, source: m[2] ?? null };
    });
}

function pattern_of(segs: Seg[]): string {
  return "/" + segs.map((s) => (s.kind === "static" ? s.text : s.kind === "wildcard" ? "*" : `:${s.name}${s.source === null ? "" : `(${s.source})`}`)).join("/");
}

/** Parameters if `segs` matches `path` (split on "/"), else null. */
function match(segs: Seg[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let k = 0; k < segs.length; k++) {
    const s = segs[k]!;
    if (s.kind === "wildcard") {
      params["*"] = parts.slice(k).join("/");
      return k < parts.length ? params : null; // "/a/*" needs the slash: it matches "/a/", not "/a"
    }
    const part = parts[k];
    if (part === undefined) return null;
    if (s.kind === "static" && s.text !== part) return null;
    if (s.kind === "param") {
      if (part === "" || (s.source !== null && !new RegExp(`^(?:${s.source})$`).test(part))) return null;
      params[s.name] = part;
    }
  }
  return segs.length === parts.length ? params : null;
}

/** Per-segment rank: static, then constraints in the order first registered there, plain, wildcard. */
function ranks(route: Ref, order: Map<string, number>): number[] {
  return route.segs.map((s, k) => {
    if (s.kind === "static") return 0;
    if (s.kind === "wildcard") return 1e9;
    if (s.source === null) return 1e8;
    return 1 + order.get(`${pattern_of(route.segs.slice(0, k))}|${s.source}`)!;
  });
}

/** The pattern with parameter names erased. */
function shape(segs: Seg[]): string {
  return pattern_of(segs.map((s) => (s.kind === "param" ? { ...s, name: "" } : s)));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

test("find() agrees with a brute-force reference on random route sets", () => {
  const route = fc.tuple(fc.constantFrom<Method>("GET", "POST", "HEAD"), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }));
  const path = fc.array(fc.constantFrom(...PATH_SEGMENTS), { minLength: 1, maxLength: 5 }).map((p) => `/${p.join("/")}`);
  fc.assert(
    fc.property(
      fc.array(route, { maxLength: 25 }),
      fc.array(path, { minLength: 1, maxLength: 20 }),
      fc.constantFrom<string>("GET", "POST", "HEAD", "PUT", "FOO"),
      fc.constantFrom(0, 3),
      (defs, paths, method, path_cache_size) => {
        const router = new Router<string>({ path_cache_size });
        const refs: Ref[] = [];
        const order = new Map<string, number>();
        for (const [m, segments] of defs) {
          const segs = parse(`/${segments.join("/")}`);
          if (segs.slice(0, -1).some((s) => s.kind === "wildcard")) continue;
          const pattern = pattern_of(segs);
          try {
            router.add(m, pattern, `${m} ${pattern}`);
          } catch (error) {
            expect(error).toBeInstanceOf(RouterError);
            continue;
          }
          refs.push({ method: m, pattern, segs });
          segs.forEach((s, k) => {
            const key = `${pattern_of(segs.slice(0, k))}|${s.kind === "param" ? s.source : ""}`;
            if (s.kind === "param" && s.source !== null && !order.has(key)) order.set(key, order.size);
          });
        }
        const heads = new Set(refs.filter((r) => r.method === "HEAD").map((r) => shape(r.segs)));
        const usable = (m: string) => refs.filter((r) => (m === "HEAD" ? r.method === "HEAD" || (r.method === "GET" && !heads.has(shape(r.segs))) : r.method === m));
        for (const p of paths) {
          const parts = p.slice(1).split("/");
          const candidates = usable(method)
            .map((r) => ({ r, params: match(r.segs, parts) }))
            .filter((c) => c.params !== null);
          candidates.sort((x, y) => compare(ranks(x.r, order), ranks(y.r, order)));
          const result = router.find(method, p);
          const best = candidates[0];
          if (best === undefined) {
            const allowed = METHODS.filter((m) => usable(m).some((r) => match(r.segs, parts) !== null)).sort();
            expect(result).toEqual(allowed.length === 0 ? { kind: "not_found" } : { kind: "method_not_allowed", allowed });
            continue;
          }
          const malformed = Object.values(best.params!).some((v) => v.includes("%zz"));
          if (malformed) {
            expect(result.kind).toBe("bad_request");
            continue;
          }
          expect(result).toMatchObject({ kind: "found", route: best.r.pattern });
          const decoded = Object.fromEntries(Object.entries(best.params!).map(([k, v]) => [k, decodeURIComponent(v)]));
          expect(result.kind === "found" && { ...result.params }).toEqual(decoded);
        }
      },
    ),
    { numRuns: 400 },
  );
});
