export { ATTRIBUTES } from "./attributes.js";
export { otelLimiterListener, otelPoolListener } from "./fleet-listeners.js";
export type { OtelListenerOptions } from "./options.js";
export { otelListener } from "./orchestrator-listener.js";
