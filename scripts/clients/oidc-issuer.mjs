// oidc-issuer.mjs runs a real OAuth 2.0 / OpenID Connect authorization
// server for the tests: node-oidc-provider (oidc-provider, pinned in
// package-lock.json; an OpenID Certified implementation), on a free
// loopback port. cmd/obsidian-mcp's OAuth tests start it, ask it for
// access tokens, and give those to obsidian-mcp, which trusts it with
// --oauth-issuer. It issues what an identity provider gives a resource
// server: JWT access tokens signed with its own keys (JWKS), for the
// resource (RFC 8707) and the scopes asked for.
//
//   node oidc-issuer.mjs plan.json
//
// The plan is {"clients": [{"client_id", "client_secret", ...}], "scopes":
// "vault:read vault:write", "ttl": seconds, "format": "jwt" (default) or
// "opaque", "interactive": true}. Opaque tokens are checked by
// introspection (RFC 7662), and any token can be revoked (RFC 7009).
// Interactive, it also takes what an app signing a person in needs:
// dynamic client registration (RFC 7591), the authorization code grant
// with PKCE through its own sign-in and consent pages (the provider's
// development pages: any login and password), and refresh tokens for
// clients registered for them. It prints one line, {"issuer": URL}, once
// it listens, and serves until its input ends.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import Provider from "oidc-provider";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const scopes = plan.scopes ?? "vault:read vault:write";

const config = {
  clients: plan.clients,
  // A refresh token for every client registered for the grant: an app
  // asks for the resource's scopes, not OpenID's offline_access.
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed("refresh_token"),
  scopes: ["openid", "offline_access", ...scopes.split(" ")],
  features: {
    devInteractions: { enabled: plan.interactive === true },
    registration: { enabled: plan.interactive === true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A token is for one resource: the one the client names, or none.
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      // Any resource the client names: the tests ask for this server's
      // and for others'.
      getResourceServerInfo: (ctx, resource) => {
        return {
          scope: scopes,
          audience: resource,
          accessTokenTTL: plan.ttl ?? 300,
          accessTokenFormat: plan.format ?? "jwt",
          jwt: { sign: { alg: "RS256" } },
        };
      },
    },
  },
};

// The issuer's URL needs the port, so the server listens first.
const server = createServer();
server.listen(0, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, config);
  server.on("request", provider.callback());
  process.stdout.write(JSON.stringify({ issuer }) + "\n");
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
