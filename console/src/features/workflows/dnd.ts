/** The drag payload type of a palette entry (a SandboxRef as JSON). */
export const SANDBOX_MIME = 'application/x-sandflow-sandbox';
