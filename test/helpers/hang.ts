/** How long a wait for an event may take before it is called a hang (a busy machine is slow, not hung). */
export const HANG_MS = 60_000
