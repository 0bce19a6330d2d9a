// examples/interactive-shell.ts — drive a shell over stdin while it runs.
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const sandbox = await runtime.launch();
try {
  const shell = await runtime.spawn(sandbox, { argv: ["sh"] });
  const output = (async () => {
    for await (const event of shell.events) if (event.type === "stdout") process.stdout.write(event.data);
  })();
  await shell.write("echo hello from the sandbox\n");
  await shell.write("cd /workspace && pwd\n");
  await shell.write("exit 7\n");
  await output;
  console.log(`the shell exited with ${(await shell.result).exitCode}`);
} finally {
  await runtime.destroy(sandbox);
}
