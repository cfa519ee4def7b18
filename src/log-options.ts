/**
 * The logger's levels and formats. Their own module because both sides need them: config.ts
 * validates the settings, log.ts honours them, and neither should import the other for it.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
