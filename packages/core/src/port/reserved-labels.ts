/**
 * Label under which `LaunchSpec.launchKey` is stored. Searching for it finds the
 * sandbox a launch with an unknown outcome may have created.
 */
export const LAUNCH_KEY_LABEL = "sandport.launch-key";

/**
 * Label under which adapters store their ownership marker (the configured owner
 * name), where the provider has labels or metadata. Sandboxes without it are
 * foreign: never listed, reattached or destroyed.
 */
export const OWNER_LABEL = "sandport.owner";
