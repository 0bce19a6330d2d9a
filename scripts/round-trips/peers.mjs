// Other libraries counted live (`--peers`): installed on demand into scripts/round-trips/peers/ (its own
// package.json, not part of the pnpm workspace) with `npm install --prefix`, then driven through W
// against the same emulator as the adapter. ComputeSDK's Vercel provider cannot be: it takes no base URL
// or fetch, and the @vercel/sandbox it pins (1.10.2) creates with POST /v1/sandboxes, which the emulator
// (speaking the /v3 API of the SDK the adapter uses) refuses; its figure stays an external one.
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
function computeSdkPort(provider, makesParents) {
  const quote = (word) => `'${word.replaceAll("'", "'\\''")}'`;
  return {
    launch: () => provider.sandbox.create(),
    writeFiles: async (sandbox, files) => {
      // A provider whose write does not create parent directories needs them made first, once each.
      if (!makesParents) {
        const parents = new Set(files.map((file) => file.path.split("/").slice(0, -1).join("/")).filter(Boolean));
        for (const parent of parents) await sandbox.filesystem.mkdir(parent);
      }
      // ComputeSDK writes one file a call (no batch); W's files are independent.
      await Promise.all(files.map((file) => sandbox.filesystem.writeFile(file.path, file.content)));
    },
    exec: (sandbox, { shell, argv }) => sandbox.runCommand(shell ?? argv.map(quote).join(" ")),
    readFile: async (sandbox, path) => new TextEncoder().encode(await sandbox.filesystem.readFile(path)),
    destroy: (sandbox) => provider.sandbox.destroy(sandbox.sandboxId),
  };
}

/**
 * Runs W through one ComputeSDK provider (`module`'s export `name`, made with `config`) against
 * `emulator` and returns its count as a measured peer figure. `reach` points the provider's vendor SDK
 * at the emulator (environment variables or the global fetch, the only ways its provider leaves open)
 * and returns the function that undoes it.
 */
async function computeSdk(emulator, { module, name, config, reach, makesParents = true }) {
  const provider = (await importPeer(module))[name](config);
  const installed = JSON.parse(execFileSync("npm", ["ls", "--prefix", folder, "--json", module], { encoding: "utf8" }));
  const routes = () => emulator.requests.map((request) => request.route);
  const before = routes().length;
  const alive = emulator.liveSandboxes().length;
  const undo = reach();
  try {
    const { phases } = await runWorkload(computeSdkPort(provider, makesParents), routes);
    // A destroy that does not wait leaves the sandbox going; the adapter's own check needs it gone.
    await gone(() => emulator.liveSandboxes().length <= alive);
    const requests = routes().length - before;
    const inPhases = Object.values(phases).reduce((sum, list) => sum + list.length, 0);
    const counts = Object.entries(phases)
      .map(([key, list]) => `${key} ${list.length}`)
      .concat(requests > inPhases ? [`${requests - inPhases} more after its destroy returned`] : [])
      .join(", ");
    return {
      name: `ComputeSDK (${module} ${installed.dependencies?.[module]?.version ?? "?"})`,
      short: "ComputeSDK",
      requests,
      measured: true,
      detail: `the same W through computesdk against this emulator: ${counts}`,
    };
  } finally {
    undo();
  }
}

/** Waits until `done()` holds, checking every 20 ms, for at most 30 s. */
async function gone(done) {
  const until = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > until) throw new Error("the peer's sandbox was still alive 30 s after its destroy");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sets environment variables for this process (the peer's vendor SDK reads them) until undone. */
function withEnv(values) {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  };
}

/**
 * ComputeSDK's E2B provider: it reaches the emulator only through the e2b SDK's environment variables
 * (its destroy connects with nothing but the API key). The adapter measured beside it takes its URLs as
 * options and reads no environment.
 */
export const computeSdkE2B = (emulator) =>
  computeSdk(emulator, {
    module: "@computesdk/e2b",
    name: "e2b",
    config: { apiKey: emulator.apiKey },
    reach: () =>
      withEnv({ E2B_API_URL: emulator.apiUrl, E2B_SANDBOX_URL: emulator.sandboxUrl, E2B_DOMAIN: emulator.domain }),
  });

/** ComputeSDK's Daytona provider (it pins @daytonaio/sdk 0.192), through DAYTONA_API_URL and DAYTONA_TARGET. */
export const computeSdkDaytona = (emulator) =>
  computeSdk(emulator, {
    module: "@computesdk/daytona",
    name: "daytona",
    config: { apiKey: emulator.apiKey },
    // Its write is a shell command (`echo <base64> | base64 -d > path`), which makes no directory.
    makesParents: false,
    reach: () => withEnv({ DAYTONA_API_URL: emulator.apiUrl, DAYTONA_TARGET: emulator.target }),
  });
