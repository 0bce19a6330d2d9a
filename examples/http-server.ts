// examples/http-server.ts — a server in the sandbox, reached through its port endpoint.

import { setTimeout as delay } from "node:timers/promises";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
// Without network (the default), only ports declared at launch are reachable, through the runtime.
const sandbox = await runtime.launch({ ports: [8000] });
try {
  await runtime.writeFiles(sandbox, [{ path: "site/index.html", content: "<h1>hello</h1>\n" }]);
  const server = await runtime.spawn(sandbox, {
    argv: ["python3", "-m", "http.server", "8000", "--bind", "127.0.0.1"],
    cwd: "site",
  });
  const { url, headers } = await runtime.portEndpoint(sandbox, 8000);
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${url}/index.html`, { headers });
      console.log(response.status, await response.text());
      break;
    } catch (error) {
      if (attempt > 50) throw error;
      await delay(100); // the server is still starting
    }
  }
  await server.kill();
} finally {
  await runtime.destroy(sandbox);
}
