/** How to reach a TCP port that a server in a sandbox listens on, from outside the sandbox. */
export interface PortEndpoint {
  /** Base URL, `http://host:port` or `https://host`, without a trailing slash. */
  readonly url: string;
  /**
   * Headers every request to `url` must carry, such as the access token of a
   * private endpoint. They are credentials: never log them, never put them in
   * URLs. Absent when the endpoint needs none.
   */
  readonly headers?: Readonly<Record<string, string>>;
}
