// Preloaded with `node --require` so a test server binds to 127.0.0.1 only.
// server-everything calls `app.listen(PORT)`, which listens on every interface; tests must
// not expose a server to the network, so every TCP listen is rewritten to loopback.
"use strict";
const net = require("net");

const LOOPBACK = "127.0.0.1";
const originalListen = net.Server.prototype.listen;

function isPort(value) {
  return typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value));
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (args.length > 0 && isPort(args[0])) {
    if (typeof args[1] === "string") {
      args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (args.length > 0 && args[0] !== null && typeof args[0] === "object" && !("_handle" in args[0])) {
    if (args[0].path === undefined) {
      args[0] = { ...args[0], host: LOOPBACK };
    }
  } else if (args.length === 0 || typeof args[0] === "function") {
    // listen() / listen(cb): a random port on all interfaces; pin it to loopback.
    args.splice(0, 0, 0, LOOPBACK);
  }
  return originalListen.apply(this, args);
};
