// A hostile stdio MCP server written for node (on @modelcontextprotocol/server): the twin of
// sandbox_probe_server.py. Its tool `probe` tries what a compromised npm package would and says what worked,
// each attempt reported as "ok: ..." or "denied: ...", keyed as the Python probe keys them: reading files,
// writing files, connecting to a TCP port on 127.0.0.1, reading a file through /proc/<pid>/root of every
// process it can see, and reading a file from a child process (children must stay confined too).
//   node tests/servers/sandbox_probe_server.mjs
// The SDK is loaded from tests/npm/node_modules beside this folder (installed by `make test`).
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";

const peers = new URL("../npm/node_modules/", import.meta.url);
const load = (path) => import(new URL(path, peers).href);
const { McpServer } = await load("@modelcontextprotocol/server/dist/index.mjs");
const { serveStdio } = await load("@modelcontextprotocol/server/dist/stdio.mjs");
const { z } = await load("zod/index.js");

const CONNECT_TIMEOUT_MS = 3000;

// Node's system errors name their code in the message ("ENOENT: no such file or directory, open '...'").
const why = (error) => (error.code && !error.message.includes(error.code) ? `${error.code}: ` : "") + error.message;

function read(path) {
  try {
    return "ok: " + readFileSync(path, "utf8").slice(0, 200);
  } catch (error) {
    return "denied: " + why(error);
  }
}

function write(path) {
  try {
    writeFileSync(path, "written by the probe", "utf8");
  } catch (error) {
    return "denied: " + why(error);
  }
  return "ok: written";
}

function connect(port) {
  return new Promise((resolve) => {
    let received = "";
    let settled = false;
    const settle = (outcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const socket = tcpConnect({ host: "127.0.0.1", port });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => settle("denied: timed out"));
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      if (received.length >= 64) settle("ok: " + received.slice(0, 64));
    });
    socket.on("end", () => settle("ok: " + received));
    socket.on("close", () => settle("ok: " + received));
    socket.on("error", (error) => settle("denied: " + why(error)));
  });
}

function throughProc(path) {
  // The escape a sandbox sharing the PID namespace leaves open: another process's root.
  let seen;
  try {
    seen = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid);
  } catch (error) {
    return "denied: " + why(error);
  }
  for (const pid of seen) {
    const outcome = read(`/proc/${pid}/root${path}`);
    if (outcome.startsWith("ok")) return `${outcome} (through pid ${pid})`;
  }
  return `denied: no process's root shows it (${seen.length} processes seen)`;
}

function fromChild(path) {
  const code = [
    "try { process.stdout.write(require('node:fs').readFileSync(process.argv[1], 'utf8').slice(0, 200)); }",
    "catch (error) { process.stderr.write(error.message); process.exit(1); }",
  ].join(" ");
  try {
    const output = execFileSync(process.execPath, ["-e", code, path], { encoding: "utf8", stdio: "pipe" });
    return "ok: " + output;
  } catch (error) {
    const said = error.stderr ? String(error.stderr).trim() : "";
    return "denied: " + (said ? said.slice(-200) : why(error));
  }
}

async function probe({ read: reads, write: writes, connect: port, proc_root: procRoot, child_read: childRead }) {
  const report = {};
  for (const path of reads ?? []) report[`read ${path}`] = read(path);
  for (const path of writes ?? []) report[`write ${path}`] = write(path);
  if (port !== undefined && port !== null) report["connect"] = await connect(port);
  if (procRoot !== undefined && procRoot !== null) report["proc root"] = throughProc(procRoot);
  if (childRead !== undefined && childRead !== null) report["child read"] = fromChild(childRead);
  return { content: [{ type: "text", text: JSON.stringify(report) }] };
}

const arguments_ = z.object({
  read: z.array(z.string()).optional(),
  write: z.array(z.string()).optional(),
  connect: z.number().int().optional(),
  proc_root: z.string().optional(),
  child_read: z.string().optional(),
});

serveStdio(() => {
  const server = new McpServer({ name: "sandbox-probe-node", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "probe",
    { description: "Try each thing asked; JSON of what happened, keyed by what was tried.", inputSchema: arguments_ },
    probe,
  );
  return server;
});
