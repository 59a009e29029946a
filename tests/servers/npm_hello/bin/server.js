#!/usr/bin/env node
// A dependency-free MCP server over stdio: newline-delimited JSON-RPC, enough for a host to
// connect (legacy initialize handshake), list resources and read them. The greeting comes from
// HELLO_GREETING and the first argument, so tests can see that installs pass both through.
"use strict";
const readline = require("readline");

const greeting = process.env.HELLO_GREETING || "hello";
const audience = process.argv[2] || "world";
const resources = [{ uri: "hello://greeting", name: "greeting", mimeType: "text/plain" }];

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

const handlers = {
  initialize: () => ({
    protocolVersion: "2025-11-25",
    capabilities: { resources: {} },
    serverInfo: { name: "hello-mcp", version: "1.0.0" },
  }),
  ping: () => ({}),
  "resources/list": () => ({ resources }),
  "resources/templates/list": () => ({ resourceTemplates: [] }),
  "resources/read": (params) => ({
    contents: [{ uri: params.uri, mimeType: "text/plain", text: `${greeting}, ${audience}` }],
  }),
};

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return; // a notification
  const handler = handlers[message.method];
  if (handler) send({ id: message.id, result: handler(message.params || {}) });
  else send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
});
