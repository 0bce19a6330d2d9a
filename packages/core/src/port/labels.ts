/**
 * Key/value tags attached to a sandbox at launch.
 *
 * Adapters store them as provider metadata (E2B metadata, Daytona labels, ...)
 * or in a sidecar where the provider has none. Keys match
 * `[A-Za-z0-9][A-Za-z0-9._/-]{0,62}`; values are at most 256 printable characters.
 * Keys under `sandport.` are reserved for ownership and reconciliation markers.
 */
export type Labels = Readonly<Record<string, string>>;
