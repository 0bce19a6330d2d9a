// Faults injected by the Kubernetes emulator (API server, router, sandboxd's gRPC; one request
// log), seen through KubernetesRuntime on its sandboxd data plane: the shared wire-fault suite
// (every error typed, no hang past a deadline, nothing left unreported). Sandboxes waiting
// unadopted in a warm pool (labelled agents.x-k8s.io/warm-pool-sandbox) are the pool's, not a
// launch's: the suite is shown the others.
import { after, before, describe } from "node:test";
import {
  type KubernetesEmulator,
  kubernetesEmulatorSkipReason,
  startKubernetesEmulator,
} from "@sandport/testkit/emulators/kubernetes";
import { describeWireFaults } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { KubernetesRuntime } from "./kubernetes-runtime.js";

const CLAIMS = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims";
const START = "rpc process.v1.ProcessService/Start";
const EXEC = "GET /api/v1/namespaces/:namespace/pods/:name/exec";
/** The cases of claims alone: the same API server calls on either plane, run once (with sandboxd). */
const CLAIM_CASES = [
  "create-rate-limited",
  "create-refused",
  "create-lost-response",
  "create-dropped",
  "create-past-deadline",
  "create-aborted",
  "list-refused",
  "delete-refused",
  "delete-lost-response",
] as const;

for (const dataPlane of ["sandboxd", "pod-exec"] as const) {
  describe(`KubernetesRuntime under injected faults (${dataPlane} → Kubernetes emulator)`, {
    skip: await kubernetesEmulatorSkipReason(),
  }, () => {
    let emulator: KubernetesEmulator;
    let launched: KubernetesEmulator;
    let runtime: KubernetesRuntime;

    before(async () => {
      emulator = await startKubernetesEmulator();
      runtime = new KubernetesRuntime({ ...emulatorOptions(emulator, dataPlane), owner: "fault-tests" });
      const claimed = () =>
        emulator
          .liveSandboxes()
          .filter((sandbox) => sandbox.metadata?.["agents.x-k8s.io/warm-pool-sandbox"] === undefined);
      launched = new Proxy(emulator, {
        // Methods bound to the emulator itself: they use its private fields.
        get: (target, property) => {
          if (property === "liveSandboxes") return claimed;
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    });

    after(() => emulator.stop());

    describeWireFaults({
      runtime: () => runtime,
      emulator: () => launched,
      routes: {
        create: `POST ${CLAIMS}`,
        list: `GET ${CLAIMS}`,
        delete: `DELETE ${CLAIMS}/:name`,
        exec: dataPlane === "sandboxd" ? START : EXEC,
        stream: dataPlane === "sandboxd" ? START : EXEC,
      },
      // A gRPC refusal (a 429 or 503 is UNAVAILABLE in gRPC's mapping) before the process began is sent again.
      ...(dataPlane === "sandboxd" ? { outcomes: { execRetriedOn: [503, 429] } } : {}),
      // Kubernetes lists are one answer: the search, refused twice, is asked three times.
      listRequests: 3,
      ...(dataPlane === "pod-exec"
        ? { skip: Object.fromEntries(CLAIM_CASES.map((id) => [id, "claims only: run with the sandboxd plane"])) }
        : {}),
    });
  });
}
