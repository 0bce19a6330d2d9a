// The slice of each optional peer this package uses at run time, as structural types: the only
// values it takes from the frameworks are their own "unsupported" errors.

/** The slice of `ai` used at run time. */
export interface AiModule {
  /** The AI SDK's error for a feature an implementation does not support. */
  readonly UnsupportedFunctionalityError: new (options: {
    functionality: string;
    message?: string;
  }) => Error;
}

/** The slice of `@ai-sdk/harness` used at run time. */
export interface HarnessModule {
  /** The harness's error for a capability the sandbox does not have. */
  readonly HarnessCapabilityUnsupportedError: new (options: {
    message: string;
    harnessId?: string;
    cause?: unknown;
  }) => Error;
}
