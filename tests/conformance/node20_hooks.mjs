// Module hooks for node20.mjs: the suite's `fs` gets a stand-in `globSync`.
const shim = new URL("./node20_fs.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes("/@modelcontextprotocol/conformance/") ?? false;
  if (fromSuite && (specifier === "fs" || specifier === "node:fs")) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
