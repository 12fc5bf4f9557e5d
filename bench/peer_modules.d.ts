// bench/argon2/index.ts imports these two from bench/node_modules (`cd bench && npm install`),
// inside a try, and only calls their `verify`. The root install does not bring them, so for the
// typecheck (bench/tsconfig.json) they are modules of any shape.
declare module "argon2";
declare module "@node-rs/argon2";
