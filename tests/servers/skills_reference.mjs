// The reference Skills server (@olaservo/ext-skills on @modelcontextprotocol/server) over stdio, in both eras.
//   node tests/servers/skills_reference.mjs FOLDER [--live] [--peers NODE_MODULES]
// --live serves the files as they are on disk, not as discovered: one changed since lies about its digest.
const [folder, ...flags] = process.argv.slice(2);
const at = flags.indexOf("--peers");
const peers = at >= 0 ? new URL(`file://${flags[at + 1]}/`) : new URL("../npm/node_modules/", import.meta.url);
const load = (path) => import(new URL(path, peers).href);
const { McpServer } = await load("@modelcontextprotocol/server/dist/index.mjs");
const { serveStdio } = await load("@modelcontextprotocol/server/dist/stdio.mjs");
const { discoverSkills, registerSkillResources } = await load("@olaservo/ext-skills/dist/server/index.js");
const skills = discoverSkills(folder);
if (flags.includes("--live")) for (const skill of skills.values()) delete skill.content;
serveStdio(() => {
  const server = new McpServer({ name: "reference-skills", version: "1.0.0" }, { capabilities: { resources: {} } });
  registerSkillResources(server, skills, folder, { directoryRead: true, ttlMs: 60_000, cacheScope: "private" });
  return server;
});
