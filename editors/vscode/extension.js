// The brine extension's client: starts `brine lsp` (the path from the
// brine.path setting) for .br files, through vscode-languageclient.
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("brine");
  const command = config.get("path") || "brine";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "brine",
    "Brine language server",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "brine" }, { scheme: "untitled", language: "brine" }],
      initializationOptions: { debounceMs: config.get("debounceMs") },
    }
  );
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
