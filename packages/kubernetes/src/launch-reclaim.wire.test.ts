// A launch whose outcome is unknown, against the cluster emulator: cut off by
// its deadline, by an abort, or by a connection dropped after the claim was
// made, it leaves no claim once settle() returns; an API server that refuses
// the connection sends nothing. Sandboxes waiting unadopted in a warm pool
// (labelled agents.x-k8s.io/warm-pool-sandbox) are the pool's, not a
// launch's: the suite is shown the others.
import { kubernetesEmulatorSkipReason, startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { KubernetesRuntime } from "./kubernetes-runtime.js";

const unavailable = await kubernetesEmulatorSkipReason();

describeLaunchReclaim({
  name: "KubernetesRuntime (→ Kubernetes emulator)",
  ...(unavailable === undefined ? {} : { unavailable }),
  start: async () => {
    const emulator = await startKubernetesEmulator();
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    const launched = () =>
      emulator
        .liveSandboxes()
        .filter((sandbox) => sandbox.metadata?.["agents.x-k8s.io/warm-pool-sandbox"] === undefined);
    return {
      emulator: new Proxy(emulator, {
        // Methods bound to the emulator itself: they use its private fields.
        get: (target, property) => {
          if (property === "liveSandboxes") return launched;
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
      createRoute: "POST /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims",
      runtime: new KubernetesRuntime(options),
      runtimeAt: (url) => new KubernetesRuntime({ ...options, cluster: { ...options.cluster!, server: url } }),
    };
  },
});
