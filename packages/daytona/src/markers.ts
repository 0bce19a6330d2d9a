/**
 * Names `DaytonaRuntime` reserves. A launch or request that sets one is
 * refused with `INVALID_REQUEST`. The environment variables are the port's
 * (`EXEC_MARKER_ENV`, `RESERVED_ENV`), re-exported for the adapter's files.
 */
export { EXEC_MARKER_ENV, RESERVED_ENV } from "@sandport/core";

/**
 * The label the Daytona SDK sets on every sandbox it creates (to the code
 * language, `python` by default). A caller's label of that name would be
 * overwritten, so launches refuse it and handles leave it out.
 */
export const SDK_LANGUAGE_LABEL = "code-toolbox-language";
