// bridge-hash.mjs computes the Bridge Protocol v1 tool-set hash the way the
// contract's reference code does (deepSort, localeCompare by name,
// JSON.stringify, SHA-256 hex; README, "Over HTTP"), as an independent
// check of the server's own hash. It reads GET /bridge/v1/tools's answer on
// stdin and prints the hash.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

function deepSort(obj) {
	if (Array.isArray(obj)) {
		return obj.map(deepSort);
	} else if (obj !== null && typeof obj === "object") {
		return Object.keys(obj)
			.sort()
			.reduce((acc, key) => {
				acc[key] = deepSort(obj[key]);
				return acc;
			}, {});
	}
	return obj;
}

const { tools } = JSON.parse(readFileSync(0, "utf8"));
const sorted = [...tools]
	.sort((a, b) => a.name.localeCompare(b.name))
	.map((t) => deepSort({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
process.stdout.write(createHash("sha256").update(JSON.stringify(sorted)).digest("hex") + "\n");
