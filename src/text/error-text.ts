/** An error as one line for a log: its class and message, or the thrown value as text. */
export const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
