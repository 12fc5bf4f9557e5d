/**
 * The Reflect metadata polyfill that @simplewebauthn/server's certificate code (through tsyringe)
 * needs loaded before it. A module of its own, which ceremony.ts imports (dynamically) before the
 * library: in the bundle of the single executable, an import written next to the library's would
 * not be guaranteed to run first.
 */
import "reflect-metadata";
