/**
 * The version of this build, in a module of its own: `idp --version` and `idp serve` print it
 * without loading the help.
 */
import pkg from "../../package.json" with { type: "json" };

/** package.json's version, embedded at bundle time. */
export const VERSION: string = pkg.version;
