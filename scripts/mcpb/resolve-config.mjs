// Prints the command, args and env an MCPB host would start for an unpacked
// bundle, using the MCPB package's own resolution (getMcpConfigForManifest),
// as Claude Desktop does. Usage:
//   node resolve-config.mjs <unpacked dir> <darwin|win32|linux> [user config JSON]
// An empty user config is a user who filled in nothing at install.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const [dir, platform, userJSON = "{}"] = process.argv.slice(2);
if (!dir || !["darwin", "win32", "linux"].includes(platform)) {
  console.error("usage: node resolve-config.mjs <unpacked dir> <darwin|win32|linux> [user config JSON]");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
// The resolution picks platform_overrides by process.platform.
Object.defineProperty(process, "platform", { value: platform });
const home = "/home/user";
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: dir,
  systemDirs: { HOME: home, DESKTOP: `${home}/Desktop`, DOCUMENTS: `${home}/Documents`, DOWNLOADS: `${home}/Downloads` },
  userConfig: JSON.parse(userJSON),
  pathSeparator: platform === "win32" ? "\\" : "/",
  logger: { warn: (m) => console.error(m), log: () => {}, error: (m) => console.error(m) },
});
if (!config) {
  console.error("the host would not start this bundle (required configuration missing?)");
  process.exit(1);
}
process.stdout.write(JSON.stringify({ platform, ...config }) + "\n");
