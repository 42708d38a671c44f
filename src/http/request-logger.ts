import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Checked = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * Fastify's childLoggerFactory: the request's logger (bound to its reqId) is made only when the
 * request logs something at an enabled level. pino's child() per request was a tenth of the
 * service's time on a cached GET /me at LOG_LEVEL=warn, where most requests log nothing.
 * A route with a log level of its own gets its child at once (the level is the child's). Its
 * children (auth binds integration_id or staff_token_id) are lazy the same way.
 */
export function lazyRequestLogger(this: unknown, parent: FastifyBaseLogger, bindings: Record<string, unknown>, options: { level?: string }): FastifyBaseLogger {
  if (options.level !== undefined) return parent.child(bindings, options);
  return lazyLogger(() => parent.child(bindings, options), parent);
}

/** A logger that calls `make` for the real one on its first enabled log call (a class: one allocation per request). */
class LazyLogger {
  private made: Checked | null = null;
  constructor(
    private readonly make: () => FastifyBaseLogger,
    private readonly levels: Checked,
  ) {}
  private real(): Checked {
    return (this.made ??= this.make() as Checked);
  }
  get level(): string {
    return this.made?.level ?? this.levels.level;
  }
  set level(value: string) {
    this.real().level = value;
  }
  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.levels).isLevelEnabled?.(level) ?? true;
  }
  log(level: Level, args: unknown[]): void {
    if (!this.made && !this.isLevelEnabled(level)) return;
    const real = this.real();
    Reflect.apply(real[level], real, args);
  }
  silent() {}
  child(bindings: Record<string, unknown>, options: { level?: string } = {}): FastifyBaseLogger {
    if (options.level !== undefined) return this.real().child(bindings, options);
    return lazyLogger(() => this.real().child(bindings, options), this as unknown as Checked);
  }
}

// fatal(…), error(…), … trace(…): each logs at its level.
for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  (LazyLogger.prototype as unknown as Record<Level, (...args: unknown[]) => void>)[level] = function (this: LazyLogger, ...args: unknown[]) {
    this.log(level, args);
  };
}

function lazyLogger(make: () => FastifyBaseLogger, levels: Checked): FastifyBaseLogger {
  return new LazyLogger(make, levels) as unknown as FastifyBaseLogger;
}
