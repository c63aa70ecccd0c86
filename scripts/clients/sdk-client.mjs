// sdk-client.mjs drives an MCP server over stdio with the official
// TypeScript SDK's client (@modelcontextprotocol/sdk, pinned in
// package-lock.json), the client Claude Desktop, Claude Code, Cursor and the
// MCP Inspector are built on. cmd/obsidian-mcp/clients_test.go runs it and
// checks what it prints; it asserts nothing itself, so that one set of Go
// checks serves every client.
//
//   node sdk-client.mjs MODE < plan.json
//
// The plan is {"command", "args", "env", ...}, or {"url", "headers", ...}
// for a server over MCP Streamable HTTP (the SDK's
// StreamableHTTPClientTransport, as web clients use), or {"sse", ...} for
// one over the 2024-11-05 HTTP+SSE transport (SSEClientTransport, as the
// gateway's SSE endpoints serve it); every mode prints one JSON
// object on stdout. A failed call is reported with the code, message and
// data the SDK gives it (an McpError), or as "thrown" for any other error.
//
//   calls      connect, send steps[0] at once (no tools/list first, as a
//              client with a cached tool list does), then tools/list, then
//              the other steps, which the SDK checks against each tool's
//              output schema
//   immediate  starts fresh servers `starts` times; each connects and calls
//              steps[0] at once
//   cancel     starts steps[0], waits until the file `waitFile` exists (the
//              call is running), aborts it, then pings
//   close      sends every step at once and closes the connection while
//              they are in flight (once `waitFile` exists, if given)
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const mode = process.argv[2];
const plan = JSON.parse(readFileSync(0, "utf8"));

async function connect() {
	if (plan.sse) {
		const transport = new SSEClientTransport(new URL(plan.sse), {
			requestInit: { headers: plan.headers ?? {} },
		});
		const client = new Client({ name: "sdk-client.mjs", version: "1.0.0" });
		await client.connect(transport);
		return { client, stderr: () => "", transport };
	}
	if (plan.url) {
		const transport = new StreamableHTTPClientTransport(new URL(plan.url), {
			requestInit: { headers: plan.headers ?? {} },
		});
		const client = new Client({ name: "sdk-client.mjs", version: "1.0.0" });
		await client.connect(transport);
		return { client, stderr: () => "", transport };
	}
	const transport = new StdioClientTransport({
		command: plan.command,
		args: plan.args ?? [],
		env: { ...process.env, ...(plan.env ?? {}) },
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk) => (stderr += chunk));
	const client = new Client({ name: "sdk-client.mjs", version: "1.0.0" });
	await client.connect(transport);
	return { client, stderr: () => stderr };
}

// outcome runs one call and reports its result or error as plain JSON.
async function outcome(promise) {
	try {
		return { result: await promise };
	} catch (err) {
		if (err instanceof McpError) {
			return { error: { code: err.code, message: err.message, data: err.data ?? null } };
		}
		return { thrown: String(err?.name ?? "Error") + ": " + String(err?.message ?? err) };
	}
}

// waitFor waits until file exists (the fake CLI writes it once a call runs).
async function waitFor(file) {
	for (let i = 0; file && !existsSync(file); i++) {
		if (i > 1000) throw new Error("the call never started: no " + file);
		await sleep(10);
	}
}

function call(client, step, options) {
	return client.callTool({ name: step.tool, arguments: step.arguments ?? {} }, undefined, options);
}

const modes = {
	async calls() {
		const { client, stderr } = await connect();
		const first = await outcome(call(client, plan.steps[0]));
		const listed = await client.listTools();
		const rest = [];
		for (const step of plan.steps.slice(1)) {
			rest.push(await outcome(call(client, step)));
		}
		await client.close();
		return {
			server: client.getServerVersion(),
			tools: listed.tools.map((t) => t.name),
			steps: [first, ...rest],
			stderr: stderr(),
		};
	},

	async immediate() {
		const failures = [];
		let ok = 0;
		for (let i = 0; i < plan.starts; i++) {
			const { client, stderr } = await connect();
			const got = await outcome(call(client, plan.steps[0]));
			await client.close();
			if (got.result && !got.result.isError) {
				ok++;
			} else {
				failures.push({ start: i, got, stderr: stderr() });
			}
		}
		return { starts: plan.starts, ok, failures: failures.slice(0, 5) };
	},

	async cancel() {
		const { client, stderr } = await connect();
		const abort = new AbortController();
		const pending = outcome(call(client, plan.steps[0], { signal: abort.signal }));
		await waitFor(plan.waitFile);
		abort.abort("the user changed their mind");
		const cancelled = await pending;
		const ping = await outcome(client.ping());
		await client.close();
		return { cancelled, ping, stderr: stderr() };
	},

	async close() {
		const { client, stderr } = await connect();
		const inFlight = plan.steps.map((step) => outcome(call(client, step)));
		await waitFor(plan.waitFile);
		await client.close();
		const settled = await Promise.all(inFlight);
		return { settled, stderr: stderr() };
	},
};

if (!modes[mode]) {
	console.error("usage: node sdk-client.mjs calls|immediate|cancel|close < plan.json");
	process.exit(2);
}
process.stdout.write(JSON.stringify(await modes[mode]()) + "\n");
