import { ApiError } from "./api.js";
import type { FreestyleVm } from "./context.js";

/**
 * Make `slug` free for the VM `ownerId` (or for a VM about to be created):
 * 409 `SLUG_TAKEN` when another VM holds it, unless `reassign` takes it from
 * that VM, which keeps running without a slug.
 */
export function claimSlug(
  vms: readonly FreestyleVm[],
  slug: string,
  reassign: boolean,
  ownerId: string | undefined,
): void {
  const holder = vms.find((vm) => vm.data.slug === slug);
  if (!holder || holder.id === ownerId) return;
  if (!reassign) throw new ApiError(409, "SLUG_TAKEN", `slug ${slug} is held by VM ${holder.id}`);
  holder.data.slug = null;
  holder.data.updatedAt = Date.now();
}
