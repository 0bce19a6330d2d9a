// examples/local-runtime.ts — the local runtime's main options, and what a command sees.
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime({
  // root: "/srv/sandboxes", // where sandboxes live; default ~/.cache/sandport/local (root: /var/lib/sandport/local)
  isolation: "namespaces", // the default; "none" is an explicit opt-in to plain host processes
  readOnlyPaths: ["/opt/toolchain"], // extra host paths visible read-only inside (skipped when missing)
});
const sandbox = await runtime.launch({ labels: { job: "42" }, env: { GREETING: "hello" } });
try {
  await runtime.writeFiles(sandbox, [{ path: "app/test.sh", content: 'echo "$GREETING from $PWD"', mode: 0o755 }]);
  const result = await runtime.exec(sandbox, { argv: ["./test.sh"], cwd: "app", timeoutMs: 60_000 });
  console.log(result.stdout.trim(), `(isolation: ${result.isolation})`);
} finally {
  await runtime.destroy(sandbox);
}
