/**
 * @sandport/modal: the Sandport runtime for Modal sandboxes. The Modal Labs
 * SDK (`modal`, `>=0.11 <1`) is an optional peer dependency, loaded on first
 * use; importing this module loads nothing.
 *
 * @module
 */

export { modalCapabilities } from "./capabilities.js";
export type { ModalHandle } from "./handle.js";
export { ModalRuntime } from "./modal-runtime.js";
export type { ModalRuntimeOptions } from "./options.js";
export { DEFAULT_MODAL_TIMEOUTS } from "./options.js";
