// Other libraries counted live (`--peers`): installed on demand into scripts/round-trips/peers/ (its own
// package.json, not part of the pnpm workspace) with `npm install --prefix`, then driven through W
// against the same emulator as the adapter. Only ComputeSDK's E2B provider can be pointed at an
// emulator as it is published: its Daytona provider pins @daytonaio/sdk 0.192.0 and its Vercel
// provider takes no base URL or fetch (see docs/benchmarks.md).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runWorkload } from "./workload.mjs";

const folder = fileURLToPath(new URL("peers/", import.meta.url));

/** Imports a package of peers/, installing the folder's dependencies first when they are missing. */
async function importPeer(name) {
  const entry = join(folder, "node_modules", name, "package.json");
  if (!existsSync(entry)) {
    console.log(`installing ${folder}package.json (npm install --prefix) …`);
    execFileSync("npm", ["install", "--prefix", folder, "--no-audit", "--no-fund"], { stdio: "inherit" });
  }
  const { createRequire } = await import("node:module");
  return import(pathToFileURL(createRequire(join(folder, "package.json")).resolve(name)).href);
}

/** A ComputeSDK sandbox shaped as the part of the runtime port W uses: one call of its API per port call. */
function computeSdkPort(provider) {
  const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`;
  return {
    launch: () => provider.sandbox.create(),
    writeFiles: async (sandbox, files) => {
      // ComputeSDK writes one file a call (no batch); W's files are independent.
      await Promise.all(files.map((file) => sandbox.filesystem.writeFile(file.path, file.content)));
    },
    exec: (sandbox, { shell, argv }) => sandbox.runCommand(shell ?? argv.map(quote).join(" ")),
    readFile: async (sandbox, path) => new TextEncoder().encode(await sandbox.filesystem.readFile(path)),
    destroy: (sandbox) => provider.sandbox.destroy(sandbox.sandboxId),
  };
}

/**
 * ComputeSDK's E2B provider through W against the E2B emulator. It reaches the emulator only through
 * the e2b SDK's environment variables (its destroy connects with nothing but the API key), which this
 * script sets for itself; the adapter measured beside it takes its URLs as options and reads no env.
 */
export async function computeSdkE2B(emulator) {
  const { e2b } = await importPeer("@computesdk/e2b");
  const version = (name) =>
    JSON.parse(execFileSync("npm", ["ls", "--prefix", folder, "--json", name], { encoding: "utf8" }));
  process.env.E2B_API_URL = emulator.apiUrl;
  process.env.E2B_SANDBOX_URL = emulator.sandboxUrl;
  process.env.E2B_DOMAIN = emulator.domain;
  const routes = () => emulator.requests.map((request) => request.route);
  const before = routes().length;
  const { phases } = await runWorkload(computeSdkPort(e2b({ apiKey: emulator.apiKey })), routes);
  const requests = routes().length - before;
  const tree = version("@computesdk/e2b").dependencies?.["@computesdk/e2b"];
  const counts = Object.entries(phases)
    .map(([key, list]) => `${key} ${list.length}`)
    .join(", ");
  return {
    name: `ComputeSDK (@computesdk/e2b ${tree?.version ?? "?"})`,
    short: "ComputeSDK",
    requests,
    measured: true,
    detail: `the same W through computesdk against this emulator: ${counts}`,
  };
}
