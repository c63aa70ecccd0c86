// oauth-client.mjs signs in to an MCP server with the official TypeScript
// SDK's OAuth client (@modelcontextprotocol/sdk's auth flow: protected
// resource metadata, authorization server metadata, dynamic client
// registration, PKCE, the code's exchange, refresh), as a web or desktop
// client does, then uses the server. cmd/obsidian-mcp's TestBuiltInOAuth
// runs it and plays the person: it opens the authorization URL this
// script prints in a browser and approves the consent page; the browser
// then lands on this script's loopback callback.
//
//   node oauth-client.mjs < plan.json
//
// The plan is {"url": MCP endpoint, "steps": [{"tool", "arguments"}]}.
// It prints {"authorize": URL} when a person must approve, then one JSON
// object: the tools listed, each step's outcome, the scope granted,
// whether a refresh gave new tokens, and the last access token.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const plan = JSON.parse(readFileSync(0, "utf8"));

// The callback: the browser lands here with the code.
let gotCode;
const code = new Promise((resolve) => (gotCode = resolve));
const callback = createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  res.writeHead(200, { "Content-Type": "text/plain" });
  res.end(u.searchParams.get("code") ? "signed in" : "no code: " + u.search);
  gotCode(u.searchParams);
});
await new Promise((r) => callback.listen(0, "127.0.0.1", r));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;

// Everything the SDK keeps between steps, in memory.
const kept = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: "TypeScript SDK test client", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation: () => kept.client,
  saveClientInformation: (c) => { kept.client = c; },
  tokens: () => kept.tokens,
  saveTokens: (t) => { kept.tokens = t; },
  saveCodeVerifier: (v) => { kept.verifier = v; },
  codeVerifier: () => kept.verifier,
  redirectToAuthorization: (u) => { process.stdout.write(JSON.stringify({ authorize: u.toString() }) + "\n"); },
};

const out = { steps: [] };
const client = new Client({ name: "oauth-test", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider }));
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  const params = await code;
  if (!params.get("code")) {
    out.denied = params.get("error");
    process.stdout.write(JSON.stringify(out) + "\n");
    process.exit(0);
  }
  const t = new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider });
  await t.finishAuth(params.get("code"));
  await client.connect(new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider }));
}
out.scope = kept.tokens?.scope;
out.tools = (await client.listTools()).tools.map((t) => t.name);
for (const s of plan.steps ?? []) {
  try {
    out.steps.push({ result: await client.callTool({ name: s.tool, arguments: s.arguments }) });
  } catch (e) {
    out.steps.push({ error: { code: e.code, message: e.message } });
  }
}
// A refresh, as the SDK does when an access token runs out.
const before = kept.tokens;
await auth(provider, { serverUrl: new URL(plan.url) });
out.refreshed = !!kept.tokens?.access_token && kept.tokens.access_token !== before.access_token && kept.tokens.refresh_token !== before.refresh_token;
// The last access token, for the test to try after the owner revokes it.
out.accessToken = kept.tokens?.access_token;
await client.close();
callback.close();
process.stdout.write(JSON.stringify(out) + "\n");
