// Lets the conformance suite (written for Node 22) run on Node 20: its only Node 22 API, fs.globSync,
// serves `tier-check`, which the tests never run. Loaded with `node --import`; a no-op on Node 22+.
import { register } from "node:module";

if (Number(process.versions.node.split(".")[0]) < 22) {
  register("./node20_hooks.mjs", import.meta.url);
}
