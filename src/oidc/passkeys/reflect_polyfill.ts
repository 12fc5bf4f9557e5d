/**
 * The Reflect metadata polyfill that @simplewebauthn/server's certificate code (through tsyringe)
 * needs loaded before it. A module of its own, imported first by ceremony.ts: in the bundle of the
 * single executable, a module's imports run in order, each before the next, while an import
 * written inside ceremony.ts itself would only run after all of ceremony.ts's dependencies.
 */
import "reflect-metadata";
