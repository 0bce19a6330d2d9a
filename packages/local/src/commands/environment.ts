/** `PATH` every command starts with, unless the launch or request env sets its own. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * A command's whole environment, built from scratch (nothing of the host's is
 * inherited): `PATH` (see {@link DEFAULT_PATH}), `HOME` (the workspace) and
 * `TMPDIR` (`<workspace>/.tmp`), then the launch env, then the request env;
 * later layers win.
 *
 * @param workspace the workspace path as the command sees it (`/workspace` when isolated, the host directory otherwise)
 */
export function buildEnvironment(
  workspace: string,
  launchEnv: Readonly<Record<string, string>> | undefined,
  requestEnv: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return {
    PATH: DEFAULT_PATH,
    HOME: workspace,
    TMPDIR: `${workspace}/.tmp`,
    ...launchEnv,
    ...requestEnv,
  };
}
